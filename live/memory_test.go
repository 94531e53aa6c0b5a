package live

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
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

// TestReadEach: copies read with one process_vm_readv for all (and in
// batches of iovMax) hold what reading each alone gives: whole ones
// whole, one running into unmapped memory cut where it starts, one at an
// unmapped address empty, and the copies after a short one read all the
// same; through /proc/PID/mem too.
func TestReadEach(t *testing.T) {
	const page = pageSize
	mem, err := unix.Mmap(-1, 0, 5*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mem)
	for i := range mem {
		mem[i] = byte(i*7 + i/page)
	}
	base := uint64(uintptr(unsafe.Pointer(&mem[0])))
	if _, _, e := unix.Syscall(unix.SYS_MUNMAP, uintptr(base+2*page), page, 0); e != 0 { // a hole
		t.Fatal(e)
	}
	type want struct {
		addr     uint64
		size, ok int
	}
	wants := []want{
		{base, page, page},
		{base + page + page/2, page, page / 2}, // into the hole
		{8, 16, 0},                             // unmapped
		{base + 3*page, 2 * page, 2 * page},    // after a short one
	}
	for i := range iovMax + 100 { // more than one batch
		wants = append(wants, want{base + uint64(i)*4, 4, 4})
	}
	for _, viaMem := range []bool{false, true} {
		m := newProcessMemory(os.Getpid())
		m.noVM.Store(viaMem)
		cs := make([]Copy, len(wants))
		for i, w := range wants {
			cs[i] = Copy{Addr: w.addr, Data: make([]byte, w.size)}
		}
		m.readEach(cs)
		for i, w := range wants {
			if len(cs[i].Data) != w.ok {
				t.Errorf("/proc/PID/mem %v: copy %d at %#x: %d bytes, want %d", viaMem, i, w.addr, len(cs[i].Data), w.ok)
				continue
			}
			if off := w.addr - base; w.ok > 0 && !bytes.Equal(cs[i].Data, mem[off:off+uint64(w.ok)]) {
				t.Errorf("/proc/PID/mem %v: copy %d at %#x: other bytes than the memory's", viaMem, i, w.addr)
			}
		}
		m.close()
	}
}
