package analyze

import (
	"encoding/binary"
	"fmt"

	"github.com/coreunwind/coreunwind/internal/mapfault"
	"github.com/coreunwind/coreunwind/unwind"
)

// sessionSpace is a Session's address space as its user calls it: the
// target with each read under mapfault.Catch, so that a core or object
// truncated or rewritten since it was mapped gives an error wrapping
// ErrFileChanged instead of a SIGBUS that ends the program. (Analyze's
// walks call the target itself, under one guard for the whole report.)
type sessionSpace struct{ t *target }

var (
	_ unwind.AddrSpace   = sessionSpace{}
	_ unwind.CodeChecker = sessionSpace{}
)

func (s sessionSpace) ByteOrder() binary.ByteOrder { return s.t.ByteOrder() }
func (s sessionSpace) PtrSize() int                { return s.t.PtrSize() }

func (s sessionSpace) ReadMem(addr uint64, p []byte) (err error) {
	if fault := mapfault.Catch(func() { err = s.t.ReadMem(addr, p) }); fault != nil {
		return fmt.Errorf("reading %#x: %w", addr, fault)
	}
	return err
}

func (s sessionSpace) FindProcInfo(ip uint64) (pi *unwind.ProcInfo, err error) {
	if fault := mapfault.Catch(func() { pi, err = s.t.FindProcInfo(ip) }); fault != nil {
		return nil, fmt.Errorf("unwind info for %#x: %w", ip, fault)
	}
	return pi, err
}

func (s sessionSpace) ProcName(ip uint64) (name string, off uint64, err error) {
	if fault := mapfault.Catch(func() { name, off, err = s.t.ProcName(ip) }); fault != nil {
		return "", 0, fmt.Errorf("name of %#x: %w", ip, fault)
	}
	return name, off, err
}

func (s sessionSpace) DynInfoListAddr() (addr uint64, err error) {
	if fault := mapfault.Catch(func() { addr, err = s.t.DynInfoListAddr() }); fault != nil {
		return 0, fmt.Errorf("dynamic unwind info list: %w", fault)
	}
	return addr, err
}

// IsCode says whether addr lies in executable memory; a fault says no.
func (s sessionSpace) IsCode(addr uint64) (code bool) {
	mapfault.Catch(func() { code = s.t.IsCode(addr) })
	return code
}
