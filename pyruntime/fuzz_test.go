package pyruntime

import (
	"encoding/binary"
	"testing"
)

// FuzzThreads reads Python threads from memory the fuzzer writes. The
// first byte picks a version (its low bits) and how the rest is memory:
// patches over the sample process of that version's layout (the
// runtime, interpreter, thread states, frames, code objects, strings,
// line tables and exception of sampleHeap), as records of a 2-byte
// offset, a length byte and that many bytes; or, with bit 7 set, the
// whole region itself. (Inputs stay small: Go's fuzzer slows to a few
// executions a second on inputs of the process's 28 KB.) Whatever the
// bytes, the reader returns within its bounds and never panics.
func FuzzThreads(f *testing.F) {
	heaps := make([]*heap, len(versions))
	for i, v := range versions {
		heaps[i] = sampleHeap(f, v)
		f.Add([]byte{byte(i)})
		// Patches: the first thread state's frame pointer and an
		// interpreter pointer turned to the runtime's own address.
		patch := []byte{byte(i), 0, 0, 8}
		patch = binary.LittleEndian.AppendUint64(patch, heapBase)
		f.Add(patch)
	}
	f.Add([]byte{0x83, 1, 2, 3})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		h := heaps[int(data[0]&0x7f)%len(heaps)]
		mem := &fakeMemory{base: heapBase, buf: data[1:]}
		if data[0]&0x80 == 0 {
			mem.buf = append([]byte(nil), h.mem.buf...)
			for p := data[1:]; len(p) >= 3; {
				off, n := int(binary.LittleEndian.Uint16(p)), int(p[2])
				p = p[3:]
				n = min(n, len(p))
				if off < len(mem.buf) {
					copy(mem.buf[off:], p[:n])
				}
				p = p[n:]
			}
		}
		r := h.reader()
		r.maxTotalFrames = 1 << 12
		threads, warnings := r.Threads(mem)
		if len(threads) > MaxThreads || len(warnings) > maxWarnings {
			t.Fatalf("%d threads, %d warnings", len(threads), len(warnings))
		}
		total := 0
		for _, th := range threads {
			total += len(th.Frames)
			for _, fr := range th.Frames {
				if len(fr.Name) > 4*maxString+3 || len(fr.File) > 4*maxString+3 {
					t.Fatalf("a name of %d bytes", len(fr.Name))
				}
			}
		}
		if total > r.maxTotalFrames {
			t.Fatalf("%d frames", total)
		}
	})
}
