package corefile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/coreunwind/coreunwind/internal/mapfault"
	"github.com/coreunwind/coreunwind/internal/regfile"
	"github.com/coreunwind/coreunwind/minidump"
)

// Options say where to find the files a core refers to.
type Options struct {
	// Executable is the program given on the command line, tried first for
	// the main executable's mappings ("" if none).
	Executable string
	// Sysroot: the core's recorded paths are resolved under this directory.
	// When set, the recorded paths themselves are not tried.
	Sysroot string
	// SearchPath: directories searched by base name, after the sysroot or
	// the recorded path.
	SearchPath []string
	// TempDir receives the decompressed copy of a compressed core ("":
	// os.TempDir()). The copy is sparse and unlinked at once.
	TempDir string
	// Files shares mapped files between the cores of a batch (nil: this
	// core maps its own).
	Files *FileCache
	// FindByBuildID, when set, names more candidate files for a module
	// whose build ID the core records (a batch's --binaries indexed by
	// build ID); they are tried after the usual candidates.
	FindByBuildID func(buildID string) []string
	// FetchByBuildID, when set, fetches the file of a module whose build
	// ID the core records when no local candidate is accepted (a
	// debuginfod client): it returns the file's path. The modules of a
	// core are fetched concurrently; the file fetched is checked like any
	// candidate, and a failed fetch is a warning naming the module.
	FetchByBuildID func(buildID string) (string, error)
	// Memory, when set, is the memory of the live process the core is a
	// snapshot of (package live): it is read wherever the core holds no
	// bytes, before any file, since the process's pages are the truth
	// (a written .data, JIT code, the heap) and a file only a stand-in.
	Memory ProcessMemory
}

// ProcessMemory reads a live process's memory: ReadProcess copies the
// longest prefix of p it can from addr and returns its length (0: none).
// It is called from many goroutines at once.
type ProcessMemory interface {
	ReadProcess(addr uint64, p []byte) int
}

// Core is an opened core file.
type Core struct {
	Path   string // the core file ("" when opened from bytes)
	Format string // "elf-linux", "elf-hpux", "som-hpux" (the 32-bit corehead format) or "minidump"; the report schema's names
	// Compression is how the file at Path was compressed ("zstd", "xz",
	// "gzip", "lz4"), "" if it was not.
	Compression string
	// Arch names the target machine: "x86_64", "i386", "ia64", "hppa"
	// (32-bit PA-RISC), "hppa64", "aarch64", ...
	Arch    string
	Machine elf.Machine
	OS      string // "linux" or "hpux"

	PID, PPID, UID int
	Comm           string // pr_fname: the first 15 bytes of the program name
	CommandLine    string // pr_psargs: the first 80 bytes of the arguments
	// Executable is the path of the program: AT_EXECFN when absolute, else
	// the path of the main executable's mapping, else AT_EXECFN as given,
	// else Comm.
	Executable string

	// Annotations are what a crash reporter attached to the dump
	// (Crashpad's annotations in a minidump), in the dump's order.
	Annotations []Annotation

	Signal  *Signal   // nil when the core records no signal
	Threads []*Thread // in note order; the kernel puts the dumping thread first
	// CrashedTID is the first thread whose pr_cursig is Signal, else the
	// first thread; 0 (none) when a damaged note comes before the first
	// thread's, which may have been the dumping thread's (noteDamage).
	CrashedTID int

	Auxv []AuxEntry
	VDSO uint64 // AT_SYSINFO_EHDR, 0 if none

	// Mappings are the NT_FILE entries, or when the core has none, the
	// mappings of the modules placed from the auxiliary vector and the link
	// map (see placement); sorted by Start.
	Mappings []Mapping
	Modules  []*Module // the main executable first, then by address
	Segments []Segment // PT_LOAD headers in file order
	Warnings []string  // problems that did not stop loading
	HPUX     *HPUXInfo // HP-UX cores: kernel, format version, exec header; nil otherwise

	order   binary.ByteOrder
	ptrSize int
	data    []byte // the core file's bytes
	ranges  []memRange
	// lastRange is 1 + the index of the range the last read was in (0:
	// none): a cursor reads the same stack and text again and again, and
	// this check is cheaper than the binary search. Atomic: threads are
	// walked concurrently.
	lastRange atomic.Int32
	overlays  []overlay
	// fileStatus says, per recorded module path, why its file is not used
	// ("" when it is): the reason unavailable memory gives.
	fileStatus map[string]string
	mapped     [][]byte // mmapped regions to release on Close
	// lazy, when set, reads data on demand: a read of data calls its
	// fill first (a batch's small cores).
	lazy *lazyCore
	// process is the live process this core is a snapshot of (nil: none);
	// see Options.Memory.
	process ProcessMemory

	// buildIDs are the build IDs a container records for the modules
	// by the address of their image (a minidump's module list), sorted
	// by address, for the modules whose ELF header the memory lacks.
	buildIDs []recordedID

	// dumperLost: a malformed note comes before the first NT_PRSTATUS,
	// which may have been the dumping thread's.
	dumperLost bool

	truncSegs  int    // segments the file ends before the end of
	truncBytes uint64 // their bytes that are missing
}

// Thread is one thread's register notes.
type Thread struct {
	TID int
	// Name is the thread's name where the producer knows it (a live
	// process's /proc/PID/task/TID/comm); "" for a core, which records
	// only the process's (Core.Comm).
	Name       string
	Signal     int    // pr_cursig: the signal being delivered to this thread, 0 if none
	PendingSig uint64 // pr_sigpend
	HeldSig    uint64 // pr_sighold (blocked)
	// GRegs is pr_reg (elf_gregset_t) as raw bytes in the target's byte
	// order; the arch package decodes it.
	GRegs  []byte
	FPRegs []byte // NT_FPREGSET, nil if absent
	XState []byte // NT_X86_XSTATE, nil if absent
	// Notes holds the thread's other notes by type (NT_PPC_VMX, NT_ARM_VFP,
	// NT_386_TLS, ...), for the arch packages.
	Notes map[uint32][]byte
}

// Open opens the core file at path. It maps the file read-only and decodes
// the headers and notes; memory is read on demand. A zstd, xz, gzip or lz4
// compressed core is first decompressed into a sparse temporary file.
func Open(path string, opts Options) (*Core, error) {
	if opts.Files != nil {
		if lc, ok := openLazy(path, opts.Files); ok {
			c, err := load(lc.buf, lc, opts)
			if err != nil {
				lc.close()
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			c.Path = path
			return c, nil
		}
	}
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	data, err := mapFile(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	kind, warning := "", ""
	if fault := mapfault.Catch(func() {
		if !isELF(data) {
			kind = compressionKind(data)
		}
	}); fault != nil {
		unmap(data)
		return nil, fmt.Errorf("%s: %w", path, fault)
	}
	if kind != "" {
		unmap(data)
		if data, warning, err = decompressFile(path, kind, opts.TempDir); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	c, err := load(data, nil, opts)
	if err != nil {
		unmap(data)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.Path, c.Compression = path, kind
	if warning != "" {
		c.Warnings = append([]string{warning}, c.Warnings...)
	}
	c.mapped = append(c.mapped, data)
	return c, nil
}

// OpenBytes opens a core held in memory (tests, fuzzing, decompressed
// cores). data must not change while the Core is in use.
func OpenBytes(data []byte, opts Options) (*Core, error) {
	return load(data, nil, opts)
}

// Close releases the mapped core and files. The Core must not be used
// afterwards.
func (c *Core) Close() error {
	var errs []error
	for _, b := range c.mapped {
		errs = append(errs, unmap(b))
	}
	if c.lazy != nil {
		errs = append(errs, c.lazy.close())
		c.lazy = nil
	}
	c.mapped, c.data, c.ranges, c.overlays = nil, nil, nil, nil
	return errors.Join(errs...)
}

// ReleasePages gives back the resident pages of the mapped core and
// files: a caller done with most of its reads (the unwinder, once every
// thread is walked: a stack read maps the pages around it too) keeps the
// process's resident set to what comes next. The mappings are read-only:
// a later read faults the same bytes in again from the page cache.
func (c *Core) ReleasePages() {
	for _, b := range c.mapped {
		releasePages(b)
	}
}

// ErrNotCore is wrapped by the error Open returns for input that is not a
// core file.
var ErrNotCore = errors.New("not a core file")

// ErrFileChanged is wrapped by the error of a read of the core or of a
// module's file that was truncated or rewritten since it was mapped (a
// library upgraded during a batch): the read faulted, and the bytes are
// gone.
var ErrFileChanged = mapfault.ErrFault

// ErrTruncated is wrapped, beside unwind.ErrUnavailable, by a read of
// memory that the core's program headers say was dumped (within p_filesz)
// but that lies past the end of the file: the core was cut short (a core
// size limit, a broken download or decompression). Memory missing for any
// other reason (never dumped, not mapped) does not wrap it.
var ErrTruncated = errors.New("core file truncated")

// load decodes the core held in data; lazy, when set, reads data on
// demand (see lazyCore). The core and the module files it maps are mapped:
// one truncated while in use (a library upgraded during a batch, whose
// FileCache keeps it mapped from core to core) faults, which fails this
// core with an error instead of killing the process.
func load(data []byte, lazy *lazyCore, opts Options) (c *Core, err error) {
	var started *Core // what decode was building: its files are unmapped after a fault
	if fault := mapfault.Catch(func() { c, err = decode(data, lazy, opts, &started) }); fault != nil {
		if started != nil {
			for _, b := range started.mapped {
				unmap(b)
			}
		}
		return nil, fmt.Errorf("reading the core and its files: %w", fault)
	}
	return c, err
}

// decode is load without the guard; *started is set to the Core as soon
// as it exists.
func decode(data []byte, lazy *lazyCore, opts Options, started **Core) (*Core, error) {
	if !isELF(data) {
		if minidump.IsMinidump(data) {
			return loadMinidump(data, opts, started)
		}
		if isCorehead(data) {
			return loadCorehead(data, opts, started)
		}
		if kind := compressionKind(data); kind != "" {
			return nil, fmt.Errorf("%w: %s-compressed data (decompress it first)", ErrNotCore, kind)
		}
		return nil, fmt.Errorf("%w: no ELF header", ErrNotCore)
	}
	h, err := parseFileHeader(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotCore, err)
	}
	if h.Type != elf.ET_CORE {
		return nil, fmt.Errorf("%w: ELF type is %v, not ET_CORE", ErrNotCore, h.Type)
	}
	c := &Core{
		Format:     "elf-linux",
		OS:         "linux",
		Machine:    h.Machine,
		Arch:       ArchName(h.Machine, h.Class, h.Order),
		order:      h.Order,
		ptrSize:    h.ptrSize(),
		data:       data,
		lazy:       lazy,
		fileStatus: map[string]string{},
		process:    opts.Memory,
	}
	*started = c
	phnum, err := h.progCount(data)
	if err != nil {
		return nil, err
	}
	tabLen := uint64(phnum) * uint64(h.Phentsize)
	tab, _ := sliceAt(data, h.Phoff, tabLen)
	phs, err := parseProgHeaders(tab, h, phnum, h.Phoff)
	if err != nil {
		if len(phs) == 0 && phnum > 0 {
			return nil, err
		}
		c.warnf("%v", err)
	}
	if isHPUXELFCore(h, phs) {
		if err := c.loadHPUXELF(phs, opts); err != nil {
			return nil, err
		}
		return c, nil
	}
	var notes []Note
	for _, ph := range phs {
		switch ph.Type {
		case elf.PT_LOAD:
			c.addSegment(ph)
		case elf.PT_NOTE:
			raw, whole := sliceAt(data, ph.Off, ph.Filesz)
			if !whole {
				c.warnf("note segment at offset 0x%x truncated: %d of %d bytes present", ph.Off, len(raw), ph.Filesz)
			}
			// Copied: notes are small, and the thread registers must
			// outlive the core's mapping.
			ns, err := ParseNotes(bytes.Clone(raw), h.Order, int(ph.Align))
			c.noteDamage(err, ph.Off, notes, ns)
			notes = append(notes, ns...)
		}
	}
	c.warnTruncation()
	sort.SliceStable(c.ranges, func(i, j int) bool { return c.ranges[i].start < c.ranges[j].start })
	c.applyNotes(notes)
	c.findModules(opts)
	c.findExecutable()
	return c, nil
}

// warnTruncation reports, once, the segments a truncated file lacks.
func (c *Core) warnTruncation() {
	if c.truncSegs > 0 {
		c.warnf("core truncated at %d bytes: %d segments lack %d bytes of memory", len(c.data), c.truncSegs, c.truncBytes)
	}
}

func (c *Core) warnf(format string, args ...any) {
	c.Warnings = append(c.Warnings, fmt.Sprintf(format, args...))
}

func (c *Core) addSegment(ph progHeader) {
	c.Segments = append(c.Segments, Segment{Vaddr: ph.Vaddr, Memsz: ph.Memsz, Filesz: ph.Filesz, Offset: ph.Off, Flags: ph.Flags})
	r := memRange{start: ph.Vaddr, end: ph.Vaddr + ph.Memsz, off: ph.Off, flags: ph.Flags}
	if r.end < r.start {
		r.end = ^uint64(0)
	}
	if r.end == r.start {
		return
	}
	r.filesz = min(ph.Filesz, r.end-r.start)
	r.avail = r.filesz
	if present := uint64(len(c.data)); ph.Off >= present {
		r.avail = 0
	} else if present-ph.Off < r.avail {
		r.avail = present - ph.Off
	}
	if r.avail < r.filesz {
		// One warning for the whole cut, however many segments it
		// takes (a core cut early loses all of them): see truncation.
		c.truncSegs++
		c.truncBytes += r.filesz - r.avail
	}
	c.ranges = append(c.ranges, r)
}

// applyNotes decodes the notes: process-wide ones into the Core, the
// others into the thread whose NT_PRSTATUS precedes them.
func (c *Core) applyNotes(notes []Note) {
	var cur *Thread
	var psinfo *prpsinfo
	var firstPPID int32
	for _, n := range notes {
		if n.Name != "CORE" && n.Name != "LINUX" {
			continue
		}
		switch {
		case n.Type == NTPrstatus && n.Name == "CORE":
			p, err := parsePrstatus(n.Desc, c.order, c.ptrSize)
			if err != nil {
				c.damagef("thread %d: %v", len(c.Threads), err)
				cur = nil
				continue
			}
			cur = &Thread{TID: int(p.PID), Signal: int(p.Cursig), PendingSig: p.Sigpend, HeldSig: p.Sighold, GRegs: p.Reg}
			if len(c.Threads) == 0 {
				firstPPID = p.PPID
			}
			c.Threads = append(c.Threads, cur)
		case n.Type == NTPrpsinfo && n.Name == "CORE" && psinfo == nil:
			p, err := parsePrpsinfo(n.Desc, c.order, c.ptrSize)
			if err != nil {
				c.warnf("%v", err)
				continue
			}
			psinfo = &p
		case n.Type == NTSiginfo && c.Signal == nil:
			s, err := parseSiginfo(n.Desc, c.order, c.ptrSize, c.Machine)
			if err != nil {
				c.warnf("%v", err)
				continue
			}
			c.Signal = s
		case n.Type == NTAuxv && c.Auxv == nil:
			c.Auxv = parseAuxv(n.Desc, c.order, c.ptrSize)
		case n.Type == NTFile && c.Mappings == nil:
			m, err := parseNTFile(n.Desc, c.order, c.ptrSize)
			if err != nil {
				c.warnf("%v", err)
			}
			c.Mappings = m
		case cur == nil:
			// A per-thread note before any NT_PRSTATUS belongs to no thread.
		case n.Type == NTFPRegset && n.Name == "CORE" && cur.FPRegs == nil:
			cur.FPRegs = n.Desc
		case n.Type == NTX86XState && n.Name == "LINUX" && cur.XState == nil:
			cur.XState = n.Desc
		default:
			if cur.Notes == nil {
				cur.Notes = map[uint32][]byte{}
			}
			if _, dup := cur.Notes[n.Type]; !dup {
				cur.Notes[n.Type] = n.Desc
			}
		}
	}
	if psinfo != nil {
		c.PID, c.PPID, c.UID = int(psinfo.PID), int(psinfo.PPID), int(psinfo.UID)
		c.Comm, c.CommandLine = psinfo.FName, psinfo.PSArgs
	} else {
		c.warnf("no NT_PRPSINFO note: pid and command line unknown")
		c.PPID = int(firstPPID)
	}
	if v, ok := c.AuxVal(AT_SYSINFO_EHDR); ok {
		c.VDSO = v
	}
	sort.SliceStable(c.Mappings, func(i, j int) bool { return c.Mappings[i].Start < c.Mappings[j].Start })
	if len(c.Threads) == 0 {
		c.warnf("no NT_PRSTATUS note: the core has no threads")
		return
	}
	if c.Signal == nil {
		for _, t := range c.Threads {
			if t.Signal != 0 {
				c.Signal = &Signal{Number: t.Signal, machine: c.Machine}
				break
			}
		}
	}
	if c.dumperLost {
		// The kernel writes the dumping thread first (and gives every
		// thread its pr_cursig): the first thread left is another.
		c.damagef("a note before the first thread's is damaged: the crashing thread is unknown")
		return
	}
	c.CrashedTID = c.Threads[0].TID
	if c.Signal != nil {
		for _, t := range c.Threads {
			if t.Signal == c.Signal.Number {
				c.CrashedTID = t.TID
				break
			}
		}
	}
}

// AuxVal returns the value of the first auxiliary vector entry with tag.
func (c *Core) AuxVal(tag uint64) (uint64, bool) {
	for _, e := range c.Auxv {
		if e.Tag == tag {
			return e.Val, true
		}
	}
	return 0, false
}

// Thread returns the thread with the given id, or nil.
func (c *Core) Thread(tid int) *Thread {
	for _, t := range c.Threads {
		if t.TID == tid {
			return t
		}
	}
	return nil
}

// findExecutable fills Executable (see the field's comment for the order).
func (c *Core) findExecutable() {
	execfn := ""
	if a, ok := c.AuxVal(AT_EXECFN); ok {
		execfn = c.readCString(a, 4096)
	}
	switch {
	case strings.HasPrefix(execfn, "/"):
		c.Executable = execfn
	case len(c.Modules) > 0 && c.Modules[0].Main:
		c.Executable = c.Modules[0].Path
	case execfn != "":
		c.Executable = execfn
	default:
		c.Executable = c.Comm
	}
}

// readCString reads a NUL-terminated string of at most max bytes from the
// core's memory; "" if unreadable.
func (c *Core) readCString(addr uint64, max int) string {
	var buf []byte
	var b [1]byte
	for len(buf) < max {
		if c.readCore(addr+uint64(len(buf)), b[:]) != nil {
			return ""
		}
		if b[0] == 0 {
			return string(buf)
		}
		buf = append(buf, b[0])
	}
	return ""
}

// ArchName names a machine the way the report and the arch registry do
// ("x86_64", "aarch64", "hppa64", "ppc64le", ...): cores and objects of
// the same machine get the same name.
func ArchName(m elf.Machine, class elf.Class, order binary.ByteOrder) string {
	is64 := class == elf.ELFCLASS64
	big := order == binary.BigEndian
	switch m {
	case elf.EM_X86_64:
		if !is64 {
			return "x32"
		}
		return "x86_64"
	case elf.EM_386:
		return "i386"
	case elf.EM_IA_64:
		return "ia64"
	case elf.EM_PARISC:
		if is64 {
			return "hppa64"
		}
		return "hppa"
	case elf.EM_AARCH64:
		if big {
			return "aarch64_be"
		}
		return "aarch64"
	case elf.EM_ARM:
		if big {
			return "armeb"
		}
		return "arm"
	case elf.EM_PPC64:
		if big {
			return "ppc64"
		}
		return "ppc64le"
	case elf.EM_PPC:
		return "ppc"
	case elf.EM_S390:
		if is64 {
			return "s390x"
		}
		return "s390"
	case elf.EM_RISCV:
		if is64 {
			return "riscv64"
		}
		return "riscv32"
	case elf.EM_MIPS:
		s := "mips"
		if is64 {
			s = "mips64"
		}
		if !big {
			s += "el"
		}
		return s
	case elf.EM_SPARCV9:
		return "sparc64"
	case elf.EM_SPARC:
		return "sparc"
	case elf.EM_LOONGARCH:
		return "loongarch64"
	}
	return strings.ToLower(strings.TrimPrefix(m.String(), "EM_"))
}

// compressionKind recognises the compressed formats cores are often
// stored in, to say so instead of "not a core".
func compressionKind(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zstd"
	case bytes.HasPrefix(b, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return "xz"
	case bytes.HasPrefix(b, []byte{0x1f, 0x8b}):
		return "gzip"
	case bytes.HasPrefix(b, []byte{0x04, 0x22, 0x4d, 0x18}), bytes.HasPrefix(b, []byte{0x02, 0x21, 0x4c, 0x18}):
		return "lz4"
	}
	return ""
}
