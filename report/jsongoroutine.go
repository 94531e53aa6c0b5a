package report

import (
	"maps"
	"slices"
	"strconv"
)

// goroutineInfo writes what a goroutine's JSON object has beyond its
// stack: its wait, thread lock, labels, creator and panics.
func (e *jsonEnc) goroutineInfo(g *Goroutine) {
	e.key("wait_minutes")
	if g.WaitMinutes == nil {
		e.null()
	} else {
		e.b = strconv.AppendInt(e.b, *g.WaitMinutes, 10)
	}
	e.key("locked_to_thread")
	e.bool(g.LockedToThread)
	e.key("locked_tid")
	e.intPtr(g.LockedTID)
	e.key("labels")
	if g.Labels == nil {
		e.null()
	} else {
		e.open('{')
		for _, k := range slices.Sorted(maps.Keys(g.Labels)) {
			// Keys are the program's: escaped as strings are.
			e.item()
			e.str(k)
			e.b = append(e.b, ':', ' ')
			e.str(g.Labels[k])
		}
		e.close('}')
	}
	e.key("created_by")
	if c := g.CreatedBy; c == nil {
		e.null()
	} else {
		e.open('{')
		e.key("function")
		e.str(c.Function)
		e.key("goroutine")
		if c.Goroutine == nil {
			e.null()
		} else {
			e.b = strconv.AppendUint(e.b, *c.Goroutine, 10)
		}
		e.key("pc")
		e.hex(c.PC)
		e.key("function_offset")
		e.hexPtr(c.FunctionOffset)
		e.key("file")
		e.strPtr(c.File)
		e.key("line")
		e.intPtr(c.Line)
		e.close('}')
	}
	e.key("panics")
	if g.Panics == nil {
		e.null()
		return
	}
	e.open('[')
	for i := range g.Panics {
		p := &g.Panics[i]
		e.item()
		e.open('{')
		e.key("value")
		e.str(p.Value)
		e.key("type")
		e.str(p.Type)
		e.key("recovered")
		e.bool(p.Recovered)
		e.key("repanicked")
		e.bool(p.Repanicked)
		e.key("goexit")
		e.bool(p.Goexit)
		e.close('}')
	}
	e.close(']')
}
