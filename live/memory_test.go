package live

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestProcessMemoryFallback: where process_vm_readv is refused, reads go
// through /proc/PID/mem and give the same bytes, stopping at the first
// unreadable one as process_vm_readv does.
func TestProcessMemoryFallback(t *testing.T) {
	pid := startChild(t)
	b, err := os.ReadFile(filepath.Join(procDir(pid), "maps"))
	if err != nil {
		t.Fatal(err)
	}
	maps := parseMaps(b)
	var m mapping
	for _, mm := range maps {
		if mm.readable() && !mm.writable() && mm.fileBacked() {
			m = mm
			break
		}
	}
	if m.End == 0 {
		t.Fatal("no read-only file mapping")
	}
	viaVM := newProcessMemory(pid)
	viaMem := newProcessMemory(pid)
	viaMem.noVM.Store(true)
	defer viaMem.close()
	a, c := make([]byte, m.End-m.Start), make([]byte, m.End-m.Start)
	if n := viaVM.readFull(m.Start, a); n != len(a) {
		t.Fatalf("process_vm_readv read %d of %d bytes", n, len(a))
	}
	if n := viaMem.readFull(m.Start, c); n != len(c) {
		t.Fatalf("/proc/PID/mem read %d of %d bytes", n, len(c))
	}
	if viaMem.mem == nil {
		t.Fatal("/proc/PID/mem was not used")
	}
	if !bytes.Equal(a, c) { // a read-only mapping: nothing writes it
		t.Errorf("the two reads differ")
	}
	if n := viaMem.ReadProcess(8, make([]byte, 16)); n != 0 {
		t.Errorf("read %d bytes at address 8", n)
	}
}
