package ia64

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The interpreter executes IA-64 instructions as binutils' objdump
// decodes them (an independent decoder of the bundles), so that test
// stacks are what the assembled code really does. Stacked registers live
// at their backing-store homes (skip-regs arithmetic with a
// NaT-collection slot every 64 words), as after the RSE has spilled
// everything; that is the state a core holds.

// Insn is one decoded instruction slot.
type Insn struct {
	Addr uint64 // bundle address + slot
	QP   int
	Op   string   // mnemonic with completers, e.g. "br.call.sptk.many"
	Dst  []string // operands left of '='
	Src  []string // operands right of '='
	Text string
}

// Region is a piece of the interpreter's memory.
type Region struct {
	Base  uint64
	Data  []byte
	Flags elf.ProgFlag
	Name  string
	// FileOff is where the region's bytes start in the file Name (for
	// regions loaded from it).
	FileOff uint64
}

// Machine is the interpreter's state.
type Machine struct {
	Order   binary.ByteOrder
	Insns   map[uint64]*Insn
	Mem     []*Region
	GR      [32]uint64 // static registers
	BR      [8]uint64
	FR      [128]uint64 // significands
	PR      uint64
	AR      map[string]uint64 // pfs, unat, lc, fpsr, rsc, rnat, ec
	CFM     uint64
	BSP     uint64 // beginning of the current frame
	IP      uint64
	Steps   int
	Fault   string
	FaultAt uint64 // address whose access faulted
	// Shadow is the call stack as the interpreter made it, innermost
	// caller last.
	Shadow []ShadowFrame
}

var (
	lineRE = regexp.MustCompile(`^([0-9a-f]+):\t(?:[0-9a-f]{2} )+\s*\t(\[[A-Z]+\])?\s*(.*)$`)
)

// Disassemble runs objdump -d on exe and returns its instructions by
// address (bundle + slot).
func Disassemble(objdump, exe string) (map[uint64]*Insn, error) {
	out, err := exec.Command(objdump, "-d", exe).Output()
	if err != nil {
		return nil, fmt.Errorf("objdump -d %s: %v", exe, err)
	}
	insns := map[uint64]*Insn{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := lineRE.FindStringSubmatch(sc.Text())
		if m == nil || strings.TrimSpace(m[3]) == "" {
			continue
		}
		a, _ := strconv.ParseUint(m[1], 16, 64)
		addr := a&^0xf | map[uint64]uint64{0: 0, 6: 1, 0xc: 2}[a&0xf]
		insns[addr] = parseInsn(addr, m[3])
	}
	return insns, nil
}

func parseInsn(addr uint64, text string) *Insn {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), ";;"))
	if i := strings.Index(t, " <"); i >= 0 {
		t = t[:i]
	}
	in := &Insn{Addr: addr, Text: t}
	if strings.HasPrefix(t, "(p") {
		end := strings.Index(t, ")")
		in.QP, _ = strconv.Atoi(t[2:end])
		t = strings.TrimSpace(t[end+1:])
	}
	op, rest, _ := strings.Cut(t, " ")
	in.Op = op
	rest = strings.TrimSpace(rest)
	if d, s, ok := strings.Cut(rest, "="); ok {
		in.Dst, in.Src = splitOps(d), splitOps(s)
	} else {
		in.Src = splitOps(rest)
	}
	return in
}

func splitOps(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Stack layout of the interpreted process (the Linux ia64 user regions).
const (
	StackTop = 0x6000000000100000
	StackLen = 0x10000
	RBSBase  = 0x6000000000200000
	RBSLen   = 0x10000
)

// NewMachine loads exe (its PT_LOADs), decodes its code and sets up the
// memory stack and register backing store, ready to run from the entry.
func NewMachine(objdump, exe string) (*Machine, error) {
	f, err := elf.Open(exe)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := &Machine{Order: f.ByteOrder, AR: map[string]uint64{}}
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		data := make([]byte, p.Memsz)
		if _, err := p.ReadAt(data[:p.Filesz], 0); err != nil {
			return nil, err
		}
		m.Mem = append(m.Mem, &Region{Base: p.Vaddr, Data: data, Flags: p.Flags, Name: exe, FileOff: p.Off})
	}
	m.Mem = append(m.Mem,
		&Region{Base: StackTop - StackLen, Data: make([]byte, StackLen), Flags: elf.PF_R | elf.PF_W, Name: "[stack]"},
		&Region{Base: RBSBase, Data: make([]byte, RBSLen), Flags: elf.PF_R | elf.PF_W, Name: "[rbs]"})
	sort.Slice(m.Mem, func(i, j int) bool { return m.Mem[i].Base < m.Mem[j].Base })
	if m.Insns, err = Disassemble(objdump, exe); err != nil {
		return nil, err
	}
	m.IP = f.Entry
	m.GR[12] = StackTop - 16
	m.BSP = RBSBase
	return m, nil
}

func (m *Machine) region(addr, n uint64) *Region {
	for _, r := range m.Mem {
		if addr >= r.Base && addr-r.Base+n <= uint64(len(r.Data)) {
			return r
		}
	}
	return nil
}

// Load8 and Store8 access memory; a miss is a fault.
func (m *Machine) Load8(addr uint64) (uint64, bool) {
	r := m.region(addr, 8)
	if r == nil {
		return 0, false
	}
	return m.Order.Uint64(r.Data[addr-r.Base:]), true
}

func (m *Machine) Store8(addr, v uint64) bool {
	r := m.region(addr, 8)
	if r == nil || r.Flags&elf.PF_W == 0 {
		return false
	}
	m.Order.PutUint64(r.Data[addr-r.Base:], v)
	return true
}

// RSESkip is the backing-store address n registers from a (a test-side
// copy of the kernel's ia64_rse_skip_regs, so that the product's
// arithmetic is not checked against itself).
func RSESkip(a uint64, n int64) uint64 {
	// Walk slot by slot, stepping over NaT-collection slots.
	for ; n > 0; n-- {
		a += 8
		if a>>3&0x3f == 0x3f {
			a += 8
		}
	}
	for ; n < 0; n++ {
		a -= 8
		if a>>3&0x3f == 0x3f {
			a -= 8
		}
	}
	return a
}

func (m *Machine) sof() int64 { return int64(m.CFM & 0x7f) }
func (m *Machine) sol() int64 { return int64(m.CFM >> 7 & 0x7f) }

func regNum(s, prefix string) (int, bool) {
	if !strings.HasPrefix(s, prefix) {
		return 0, false
	}
	n, err := strconv.Atoi(s[len(prefix):])
	return n, err == nil
}

// GetGR reads rN of the current frame.
func (m *Machine) GetGR(n int) (uint64, error) {
	if n < 32 {
		return m.GR[n], nil
	}
	if int64(n-32) >= m.sof() {
		return 0, fmt.Errorf("r%d outside the frame (sof %d)", n, m.sof())
	}
	v, _ := m.Load8(RSESkip(m.BSP, int64(n-32)))
	return v, nil
}

func (m *Machine) SetGR(n int, v uint64) error {
	switch {
	case n == 0:
		return fmt.Errorf("write to r0")
	case n < 32:
		m.GR[n] = v
		return nil
	case int64(n-32) >= m.sof():
		return fmt.Errorf("r%d outside the frame (sof %d)", n, m.sof())
	}
	m.Store8(RSESkip(m.BSP, int64(n-32)), v)
	return nil
}

func (m *Machine) value(op string) (uint64, error) {
	if n, ok := regNum(op, "r"); ok {
		return m.GetGR(n)
	}
	v, err := strconv.ParseInt(op, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("operand %q", op)
	}
	return uint64(v), nil
}

var arNames = map[string]string{"ar.pfs": "pfs", "ar.unat": "unat", "ar.lc": "lc", "ar.fpsr": "fpsr", "ar.rsc": "rsc", "ar.rnat": "rnat", "ar.ec": "ec", "ar.bspstore": "bspstore", "ar.bsp": "bsp"}

// Run executes from IP until a fault, a break or maxSteps.
func (m *Machine) Run(maxSteps int) error {
	for ; m.Steps < maxSteps; m.Steps++ {
		in := m.Insns[m.IP]
		if in == nil {
			return fmt.Errorf("no instruction at %#x", m.IP)
		}
		next := m.IP + 1
		if m.IP&0xf == 2 || in.Op == "movl" { // movl fills slots 1 and 2
			next = m.IP&^0xf + 16
		}
		if in.QP != 0 && m.PR&(1<<in.QP) == 0 {
			m.IP = next
			continue
		}
		jump, stop, err := m.exec(in, next)
		if err != nil {
			return fmt.Errorf("%#x %s: %w", in.Addr, in.Text, err)
		}
		if stop {
			return nil
		}
		if jump != 0 {
			m.IP = jump
		} else {
			m.IP = next
		}
	}
	return fmt.Errorf("no fault after %d steps", maxSteps)
}

func (m *Machine) fault(in *Insn, addr uint64, what string) (uint64, bool, error) {
	m.Fault, m.FaultAt = what, addr
	return 0, true, nil
}

func (m *Machine) exec(in *Insn, next uint64) (jump uint64, stop bool, err error) {
	op := in.Op
	base, _, _ := strings.Cut(op, ".")
	switch {
	case base == "nop" || op == "flushrs" || op == "cover":
		return 0, false, nil
	case base == "break":
		return m.fault(in, 0, "break")
	case op == "alloc":
		// alloc rD=ar.pfs,sof,sol,sor
		sof, _ := strconv.Atoi(in.Src[1])
		sol, _ := strconv.Atoi(in.Src[2])
		old := m.AR["pfs"]
		m.CFM = uint64(sof) | uint64(sol)<<7
		n, _ := regNum(in.Dst[0], "r")
		return 0, false, m.SetGR(n, old)
	case strings.HasPrefix(op, "br.call"):
		b, _ := regNum(in.Dst[0], "b")
		var t uint64
		if n, ok := regNum(in.Src[0], "b"); ok {
			// An indirect call (to code too far for an IP-relative
			// branch, such as generated code): bundle address in bN.
			t = m.BR[n] &^ 0xf
		} else if t, err = strconv.ParseUint(in.Src[0], 16, 64); err != nil {
			return 0, false, err
		}
		ret := next
		if next&0xf != 0 {
			ret = next&^0xf + 16
		}
		sf := ShadowFrame{IP: ret, SP: m.GR[12], BSP: m.BSP, CFM: m.CFM, PR: m.PR | 1, UNAT: m.AR["unat"], LC: m.AR["lc"]}
		copy(sf.R4to7[:], m.GR[4:8])
		copy(sf.B1to5[:], m.BR[1:6])
		m.Shadow = append(m.Shadow, sf)
		m.BR[b] = ret
		m.AR["pfs"] = m.CFM | (m.AR["ec"]&0x3f)<<52
		sol := m.sol()
		m.CFM = uint64(m.sof() - sol)
		m.BSP = RSESkip(m.BSP, sol)
		return t, false, nil
	case strings.HasPrefix(op, "br.ret"):
		b, _ := regNum(in.Src[0], "b")
		if m.BR[b] == 0 {
			return m.fault(in, 0, "return to 0")
		}
		m.CFM = m.AR["pfs"] & (1<<38 - 1)
		m.BSP = RSESkip(m.BSP, -m.sol())
		if n := len(m.Shadow); n > 0 {
			m.Shadow = m.Shadow[:n-1]
		}
		return m.BR[b] &^ 0xf, false, nil
	case base == "br":
		t, err := strconv.ParseUint(in.Src[0], 16, 64)
		return t, false, err
	case base == "mov":
		return 0, false, m.mov(in)
	case base == "movl":
		d, _ := regNum(in.Dst[0], "r")
		v, err := strconv.ParseUint(in.Src[0], 0, 64)
		if err != nil {
			return 0, false, fmt.Errorf("movl operand %q", in.Src[0])
		}
		return 0, false, m.SetGR(d, v)
	case base == "adds" || base == "addl" || base == "add" || base == "sub" || base == "shladd":
		d, _ := regNum(in.Dst[0], "r")
		var v uint64
		switch base {
		case "add", "adds", "addl":
			a, err1 := m.value(in.Src[0])
			b, err2 := m.value(in.Src[1])
			if err1 != nil || err2 != nil {
				return 0, false, fmt.Errorf("operands")
			}
			v = a + b
		case "sub":
			a, _ := m.value(in.Src[0])
			b, _ := m.value(in.Src[1])
			v = a - b
		case "shladd":
			a, _ := m.value(in.Src[0])
			c, _ := strconv.Atoi(in.Src[1])
			b, _ := m.value(in.Src[2])
			v = a<<c + b
		}
		return 0, false, m.SetGR(d, v)
	case base == "cmp":
		// cmp.eq p1,p2=a,b
		p1, _ := regNum(in.Dst[0], "p")
		p2, _ := regNum(in.Dst[1], "p")
		a, _ := m.value(in.Src[0])
		b, _ := m.value(in.Src[1])
		var r bool
		switch strings.Split(op, ".")[1] {
		case "eq":
			r = a == b
		case "ne":
			r = a != b
		case "lt":
			r = int64(a) < int64(b)
		default:
			return 0, false, fmt.Errorf("unsupported %s", op)
		}
		m.setPR(p1, r)
		m.setPR(p2, !r)
		return 0, false, nil
	case base == "ld8" || base == "ldf":
		addrReg, _ := regNum(strings.Trim(in.Src[0], "[]"), "r")
		a, _ := m.GetGR(addrReg)
		v, ok := m.Load8(a)
		if !ok {
			return m.fault(in, a, "load")
		}
		if base == "ldf" {
			f, _ := regNum(in.Dst[0], "f")
			m.FR[f] = v
		} else if d, _ := regNum(in.Dst[0], "r"); true {
			if err := m.SetGR(d, v); err != nil {
				return 0, false, err
			}
		}
		return 0, false, m.postInc(addrReg, in.Src[1:])
	case base == "st8" || base == "stf":
		addrReg, _ := regNum(strings.Trim(in.Dst[0], "[]"), "r")
		a, _ := m.GetGR(addrReg)
		var v uint64
		if base == "stf" {
			f, _ := regNum(in.Src[0], "f")
			v = m.FR[f]
			if !m.Store8(a+8, 0x1003e) { // exponent of an integer-valued spill
				return m.fault(in, a, "store")
			}
		} else {
			v, _ = m.value(in.Src[0])
		}
		if !m.Store8(a, v) {
			return m.fault(in, a, "store")
		}
		return 0, false, m.postInc(addrReg, in.Src[1:])
	}
	return 0, false, fmt.Errorf("unsupported instruction")
}

func (m *Machine) setPR(p int, v bool) {
	if p == 0 {
		return
	}
	if v {
		m.PR |= 1 << p
	} else {
		m.PR &^= 1 << p
	}
}

func (m *Machine) postInc(r int, rest []string) error {
	if len(rest) == 0 {
		return nil
	}
	inc, err := m.value(rest[0])
	if err != nil {
		return err
	}
	a, _ := m.GetGR(r)
	return m.SetGR(r, a+inc)
}

func (m *Machine) mov(in *Insn) error {
	d, s := in.Dst[0], in.Src[0]
	var v uint64
	switch {
	case strings.HasPrefix(s, "b"):
		n, _ := regNum(s, "b")
		v = m.BR[n]
	case s == "ar.bsp":
		v = m.BSP
	case s == "ar.bspstore":
		v = RSESkip(m.BSP, m.sof())
	case strings.HasPrefix(s, "ar."):
		v = m.AR[arNames[s]]
	case s == "pr":
		v = m.PR
	case strings.HasPrefix(s, "f"):
		n, _ := regNum(s, "f")
		v = m.FR[n]
	default:
		var err error
		if v, err = m.value(s); err != nil {
			return err
		}
	}
	switch {
	case strings.HasPrefix(d, "b"):
		n, _ := regNum(d, "b")
		m.BR[n] = v
	case strings.HasPrefix(d, "ar."):
		m.AR[arNames[d]] = v
	case d == "pr":
		m.PR = v | 1
	case strings.HasPrefix(d, "f"):
		n, _ := regNum(d, "f")
		m.FR[n] = v
	default:
		n, ok := regNum(d, "r")
		if !ok {
			return fmt.Errorf("destination %q", d)
		}
		return m.SetGR(n, v)
	}
	return nil
}
