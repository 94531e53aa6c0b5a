package live

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// processMemory reads a process's memory: process_vm_readv, one system
// call a read, and /proc/PID/mem where that is refused (a kernel built
// without it, a seccomp policy). Both need the right to ptrace the
// process, which the snapshot already checked. Safe for concurrent use
// (corefile.ProcessMemory).
type processMemory struct {
	pid    int
	noVM   atomic.Bool // process_vm_readv refused: use /proc/PID/mem
	memErr error
	once   sync.Once
	mem    *os.File
}

// newProcessMemory reads the memory of thread pid's process (any of its
// threads: a process whose main thread has exited is read through
// another).
func newProcessMemory(pid int) *processMemory { return &processMemory{pid: pid} }

// ReadProcess copies the longest prefix of p readable at addr and
// returns its length.
func (m *processMemory) ReadProcess(addr uint64, p []byte) int {
	if len(p) == 0 {
		return 0
	}
	if !m.noVM.Load() {
		n, err := m.readv(addr, p)
		switch {
		case err == nil:
			return n
		case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
			m.noVM.Store(true)
		default:
			// EFAULT on the first page: unmapped, or not readable.
			return 0
		}
	}
	return m.pread(addr, p)
}

func (m *processMemory) readv(addr uint64, p []byte) (int, error) {
	local := []unix.Iovec{{Base: &p[0]}}
	local[0].SetLen(len(p))
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(p)}}
	return unix.ProcessVMReadv(m.pid, local, remote, 0)
}

// iovMax is the most iovecs one process_vm_readv takes (IOV_MAX).
const iovMax = 1024

// readEach fills the Data of every copy of cs from the process, with
// one process_vm_readv for all of them where it can (a system call a
// copy was a tenth of the stop for twenty threads), and cuts each to
// the prefix it could read, as readFull does.
func (m *processMemory) readEach(cs []Copy) {
	local := make([]unix.Iovec, 0, min(len(cs), iovMax))
	remote := make([]unix.RemoteIovec, 0, min(len(cs), iovMax))
	for len(cs) > 0 {
		if m.noVM.Load() || len(cs[0].Data) == 0 {
			m.readEachAlone(cs[:1])
			cs = cs[1:]
			continue
		}
		local, remote = local[:0], remote[:0]
		want := 0
		for _, c := range cs[:min(len(cs), iovMax)] {
			if len(c.Data) == 0 {
				break
			}
			v := unix.Iovec{Base: &c.Data[0]}
			v.SetLen(len(c.Data))
			local = append(local, v)
			remote = append(remote, unix.RemoteIovec{Base: uintptr(c.Addr), Len: len(c.Data)})
			want += len(c.Data)
		}
		n, err := unix.ProcessVMReadv(m.pid, local, remote, 0)
		switch {
		case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
			m.noVM.Store(true)
			continue
		case err != nil:
			n = 0 // the first copy's first page cannot be read
		case n == want:
			cs = cs[len(local):]
			continue
		}
		// The call stopped at the first byte it could not read: the
		// copies before it are whole; the one it stopped in is
		// finished alone from there (as readFull would), and the next
		// call starts after it.
		for n >= len(cs[0].Data) {
			n -= len(cs[0].Data)
			cs = cs[1:]
		}
		c := &cs[0]
		c.Data = c.Data[:n+m.readFull(c.Addr+uint64(n), c.Data[n:])]
		cs = cs[1:]
	}
}

// readEachAlone reads each copy of cs with calls of its own.
func (m *processMemory) readEachAlone(cs []Copy) {
	for i := range cs {
		cs[i].Data = cs[i].Data[:m.readFull(cs[i].Addr, cs[i].Data)]
	}
}

// pread reads through /proc/PID/mem, a page at a time past a failure:
// the file stops at the first unreadable byte like process_vm_readv.
func (m *processMemory) pread(addr uint64, p []byte) int {
	m.once.Do(func() {
		m.mem, m.memErr = os.Open(filepath.Join(procDir(m.pid), "mem"))
	})
	if m.memErr != nil || int64(addr) < 0 {
		return 0 // /proc/PID/mem takes offsets as signed
	}
	n, _ := unix.Pread(int(m.mem.Fd()), p, int64(addr))
	return max(n, 0)
}

// close releases /proc/PID/mem if it was opened.
func (m *processMemory) close() {
	if m.mem != nil {
		m.mem.Close()
	}
}

// readFull copies len(p) bytes at addr, or returns how many it could.
func (m *processMemory) readFull(addr uint64, p []byte) int {
	done := 0
	for done < len(p) {
		n := m.ReadProcess(addr+uint64(done), p[done:])
		if n == 0 {
			break
		}
		done += n
	}
	return done
}
