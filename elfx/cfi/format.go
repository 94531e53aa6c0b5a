package cfi

import (
	"strconv"
	"strings"
)

// FormatRow renders a row the way `readelf --debug-dump=frames-interp`
// shows it, on one line: "0x1139: cfa=rsp+16 rbp=c-16 rip=c-8". After the
// location and the CFA ("reg+off" or "exp") come the registers that have a
// rule, in register order with the return-address column last: "u"
// undefined, "s" same value, "c-8" saved at CFA-8, "v+8" value CFA+8, a
// register name (value in that register), "exp", "vexp", "a"
// architectural. regName maps DWARF register numbers to names; nil or an
// empty result prints "r<N>".
func FormatRow(r Row, regName func(uint64) string, raColumn uint64) string {
	name := func(n uint64) string {
		if regName != nil {
			if s := regName(n); s != "" {
				return s
			}
		}
		return "r" + strconv.FormatUint(n, 10)
	}
	var b strings.Builder
	b.WriteString("0x")
	b.WriteString(strconv.FormatUint(r.Loc, 16))
	b.WriteString(": cfa=")
	if r.CFA.Expr != nil {
		b.WriteString("exp")
	} else {
		b.WriteString(name(r.CFA.Reg))
		b.WriteString(signed(r.CFA.Offset))
	}
	one := func(reg uint64, rule Rule) {
		if rule.Kind == Unspecified {
			return
		}
		b.WriteByte(' ')
		b.WriteString(name(reg))
		b.WriteByte('=')
		b.WriteString(formatRule(rule, name))
	}
	for i, rule := range r.Regs {
		if uint64(i) != raColumn {
			one(uint64(i), rule)
		}
	}
	one(raColumn, r.Rule(raColumn))
	if r.WindowSave {
		b.WriteString(" window_save")
	}
	return b.String()
}

func formatRule(rule Rule, name func(uint64) string) string {
	switch rule.Kind {
	case Undefined:
		return "u"
	case SameValue:
		return "s"
	case Offset:
		return "c" + signed(rule.Offset)
	case ValOffset:
		return "v" + signed(rule.Offset)
	case Register:
		return name(rule.Reg)
	case Expression:
		return "exp"
	case ValExpression:
		return "vexp"
	case Architectural:
		return "a"
	}
	return "?"
}

// signed prints n with its sign, as printf's "%+d".
func signed(n int64) string {
	if n >= 0 {
		return "+" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}
