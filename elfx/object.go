package elfx

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/coreunwind/coreunwind/internal/mapfault"
)

// Object is one ELF file (executable, shared library, vDSO image or
// separate debug file) opened for unwinding and symbolization. Its methods
// are safe for concurrent use once Open or NewObject has returned.
type Object struct {
	name    string
	mapped  []byte      // the whole file when Open mapped it; nil for NewObject
	src     io.ReaderAt // the image, for reads outside sections
	size    int64
	ef      *elf.File
	buildID string
	loads   []elf.ProgHeader

	// mu serializes AttachDebugFile and Close.
	mu        sync.Mutex
	debug     *Object
	debugPath string
	retired   []*Object // debug files replaced by a later AttachDebugFile
	// debugMissing is what the last AttachDebugFile did not find (nil
	// once a debug file is attached).
	debugMissing *DebugFileError
	closed       bool
	// deferredDebug holds the debug directories of a debug file looked
	// for only when something needs it (deferDebugFile).
	deferredDebug []string
	deferredOnce  sync.Once
	// debugDirs are the debug directories AttachDebugFile searched,
	// searched again for a supplementary file (altlink.go); fetch
	// fetches one by build ID where none is there (Cache's fetcher).
	debugDirs []string
	fetch     DebugFetcher
	// keepInflated keeps every byte of a compressed debug section once
	// inflated (Cache.SetBatch).
	keepInflated atomic.Bool
	// dwarfRead is set once the DWARF is read (DWARFRead).
	dwarfRead atomic.Bool

	// derived holds everything parsed lazily. AttachDebugFile swaps in a
	// fresh one so tables built before the debug file arrived are rebuilt
	// with it.
	derived atomic.Pointer[derived]

	mini miniDebug // .gnu_debugdata, read on first use
}

// derived is the lazily parsed state of an Object.
type derived struct {
	symOnce sync.Once
	syms    *symbolTable
	// symsBuilt is set once syms is: preloadSymbols asks it without
	// waiting for (or racing with) a build another goroutine runs.
	symsBuilt atomic.Bool

	dwarfOnce sync.Once
	dwarf     *dwarfIndex
	dwarfErr  error

	goOnce sync.Once
	gotab  *goTable

	unwindOnce sync.Once
	unwind     unwindTables

	symbolValues sync.Map // SymbolValues results, by the names asked
	callSites    sync.Map // dwarf.Offset of a subprogram -> *functionCalls
	keyed        sync.Map // Keyed's values, by key -> *keyedValue

	memo  atomic.Pointer[lookupMemo]  // Symbol and SourceFrames results, with a SymbolCache
	batch atomic.Pointer[symbolBatch] // Symbol answers preloaded for a report's addresses
}

// Open maps the file at path and parses its ELF headers. Nothing else is
// read until it is asked for. The caller must Close the object.
func Open(path string) (*Object, error) {
	data, err := mapFile(path)
	if err != nil {
		return nil, err // it names path
	}
	o, err := newObject(bytes.NewReader(data), int64(len(data)), path, data)
	if err != nil {
		unmapFile(data)
		return nil, err
	}
	return o, nil
}

// NewObject parses an ELF image read through r, for example the vDSO read
// out of a core's memory. size bounds every read. name is used in errors
// and by Path.
func NewObject(r io.ReaderAt, size int64, name string) (*Object, error) {
	if size < 0 {
		return nil, fmt.Errorf("elfx: %s: negative size %d", name, size)
	}
	return newObject(io.NewSectionReader(r, 0, size), size, name, nil)
}

func newObject(r io.ReaderAt, size int64, name string, mapped []byte) (o *Object, err error) {
	defer func() {
		// debug/elf is fuzzed upstream, but a panic on hostile input must
		// never escape to a caller symbolizing a whole batch of cores.
		if p := recover(); p != nil {
			mapfault.Reraise(p)
			o, err = nil, fmt.Errorf("%s: malformed ELF file (%v)", name, p)
		}
	}()
	ef, err := elf.NewFile(r)
	if err != nil {
		return nil, openError(name, r, size, err)
	}
	o = &Object{name: name, mapped: mapped, src: r, size: size, ef: ef}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD {
			o.loads = append(o.loads, p.ProgHeader)
		}
	}
	o.buildID = readBuildID(o)
	o.derived.Store(&derived{})
	return o, nil
}

// Close releases the file mapping. The object must not be used afterwards.
// Closing an object also closes its attached debug file.
func (o *Object) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	o.closed = true
	var errs []error
	if o.debug != nil {
		errs = append(errs, o.debug.Close())
	}
	for _, d := range o.retired {
		errs = append(errs, d.Close())
	}
	if d := o.derived.Load(); d != nil && d.dwarf != nil && d.dwarf.alt != nil {
		errs = append(errs, d.dwarf.alt.obj.Close())
	}
	if d := o.derived.Load(); d != nil && d.dwarf != nil && d.dwarf.lazy != nil {
		d.dwarf.lazy.unmapInflated()
	}
	if o.mapped != nil {
		errs = append(errs, unmapFile(o.mapped))
		o.mapped = nil
	}
	return errors.Join(errs...)
}

// Path is the file name given to Open, or the name given to NewObject.
func (o *Object) Path() string { return o.name }

// ELF is the parsed file header, program headers and section headers.
func (o *Object) ELF() *elf.File { return o.ef }

// BuildID is the lower-case hex NT_GNU_BUILD_ID, or "" if there is none.
func (o *Object) BuildID() string { return o.buildID }

// ByteOrder is the object's data encoding.
func (o *Object) ByteOrder() binary.ByteOrder { return o.ef.ByteOrder }

// PtrSize is 8 for ELFCLASS64 objects and 4 for ELFCLASS32 ones.
func (o *Object) PtrSize() int {
	if o.ef.Class == elf.ELFCLASS64 {
		return 8
	}
	return 4
}

// Machine is e_machine.
func (o *Object) Machine() elf.Machine { return o.ef.Machine }

// Type is e_type (ET_EXEC, ET_DYN, ...).
func (o *Object) Type() elf.Type { return o.ef.Type }

// LoadSegments are the PT_LOAD program headers in file order. A mapping of
// this object that starts at file offset off was loaded from the PT_LOAD
// whose page-rounded p_offset equals off; the load bias is the mapping's
// start minus that header's page-rounded p_vaddr.
func (o *Object) LoadSegments() []elf.ProgHeader {
	return append([]elf.ProgHeader(nil), o.loads...)
}

// state returns the current lazily parsed state.
func (o *Object) state() *derived { return o.derived.Load() }

// sectionData returns a section's contents. Uncompressed sections of a
// mapped file are returned without copying; the caller must not modify
// them. SHT_NOBITS sections (the stubs a separate debug file keeps for
// code sections) have no contents and yield an error.
func (o *Object) sectionData(s *elf.Section) ([]byte, error) {
	if s.Type == elf.SHT_NOBITS {
		return nil, fmt.Errorf("elfx: %s: section %s has no data (SHT_NOBITS)", o.name, s.Name)
	}
	if o.mapped != nil && s.Flags&elf.SHF_COMPRESSED == 0 {
		end := s.Offset + s.FileSize
		if end < s.Offset || end > uint64(len(o.mapped)) {
			return nil, fmt.Errorf("elfx: %s: section %s [%#x,%#x) runs past the end of the file (%d bytes)",
				o.name, s.Name, s.Offset, end, len(o.mapped))
		}
		return o.mapped[s.Offset:end:end], nil
	}
	if o.mapped != nil {
		// Compressed (a Go binary's .debug_frame): the package's own
		// inflater, several times debug/elf's compress/zlib.
		raw, err := o.rawSection(s)
		if err == nil {
			raw, err = inflateSection(raw, o.ef.Class, o.ef.ByteOrder, s.Name)
		}
		if err != nil {
			return nil, fmt.Errorf("elfx: %s: %w", o.name, err)
		}
		return raw, nil
	}
	if s.Flags&elf.SHF_COMPRESSED == 0 && s.Size > uint64(o.size) {
		return nil, fmt.Errorf("elfx: %s: section %s size %d exceeds the file size %d", o.name, s.Name, s.Size, o.size)
	}
	data, err := s.Data()
	if err != nil {
		return nil, fmt.Errorf("elfx: %s: section %s: %w", o.name, s.Name, err)
	}
	return data, nil
}

// section returns the named section if it is present with contents.
func (o *Object) section(name string) *elf.Section {
	s := o.ef.Section(name)
	if s == nil || s.Type == elf.SHT_NOBITS {
		return nil
	}
	return s
}
