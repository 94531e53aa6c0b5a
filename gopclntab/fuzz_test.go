package gopclntab

import (
	"debug/elf"
	"encoding/binary"
	"testing"
)

// FuzzTable reads a table from fuzzer bytes and asks it everything: the
// function at addresses taken from the input, its lines, SP deltas and
// inlined frames (with the input as the gofunc bytes too), a function by
// name, every function, and a moduledata in the input. Nothing may
// panic, loop without end or allocate by a size read from the bytes.
func FuzzTable(f *testing.F) {
	crafted, gofunc := craftedTable()
	f.Add(crafted, gofunc, uint64(craftedText))
	f.Add(crafted[:40], gofunc, uint64(0))
	f.Add([]byte{}, []byte{}, uint64(0))
	f.Fuzz(func(t *testing.T, data, gofunc []byte, text uint64) {
		tab, err := Parse(data, text)
		if err != nil {
			return
		}
		tab.SetGoFunc(gofunc)
		pcs := []uint64{text, text + 1, text + 10}
		for i := 0; i+8 <= len(data) && len(pcs) < 16; i += len(data)/8 + 1 {
			pcs = append(pcs, text+binary.LittleEndian.Uint64(data[i:])%(1<<20))
		}
		for _, pc := range pcs {
			fn, ok := tab.FuncAt(pc)
			if !ok {
				continue
			}
			if pc < fn.Entry || pc >= fn.End {
				t.Fatalf("function [%#x,%#x) for %#x", fn.Entry, fn.End, pc)
			}
			fn.FileLine(pc)
			fn.SPDelta(pc)
			fn.PCData(0, pc)
			if frames, _ := fn.Frames(pc); len(frames) > maxInlineDepth {
				t.Fatalf("%d frames", len(frames))
			}
		}
		tab.FuncByName("main.f")
		n := 0
		tab.Funcs(func(Func) bool { n++; return n < 1000 })
		tab.FindModuleData(text, []Segment{{Addr: text, Data: data}})
		if frame, err := tab.DebugFrame(elf.EM_X86_64); err == nil && len(frame) > 64*(len(data)+frameRowBudget) {
			t.Fatalf("a frame table of %d bytes from %d", len(frame), len(data))
		}
	})
}
