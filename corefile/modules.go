package corefile

import (
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Module is one ELF object mapped into the process: the main executable,
// a shared library or the vDSO.
type Module struct {
	Path       string // as recorded in the core ("[vdso]" for the vDSO)
	Start, End uint64 // lowest start and highest end of its mappings
	// Base is the address of its ELF header (the mapping with file offset
	// 0), 0 if no such mapping exists.
	Base       uint64
	FileOffset uint64 // file offset of the lowest mapping
	// BuildID is the GNU build ID (hex) read from the core's memory, ""
	// when the core does not hold it.
	BuildID string
	// File is the file on disk that fills the module's memory where the
	// core lacks it, "" if none was found or accepted.
	File        string
	FileBuildID string // the build ID in File, "" if it has none
	// FileID is File's identity when the module's file was taken from
	// a batch's FileCache (the zero FileID otherwise): the batch's other
	// caches key the same file by it without looking it up again.
	FileID FileID
	// Found: memory beyond the core is available (a file was accepted), or
	// the whole image is in the core (InCore).
	Found bool
	// Missing says why no file was accepted ("" when one was, or none
	// is needed) and how to give the right one: the unwinder quotes it
	// where a stack stops in the module.
	Missing  string
	InCore   bool // the vDSO: the core holds the whole image
	Main     bool // the main executable
	Mappings []Mapping

	headerUnknown bool // the core lacks the page at Base: ELF-ness unchecked
	notELF        bool // headerUnknown, and the file found is not ELF: drop
	// place is set for a module no NT_FILE note describes (see
	// placement), nil for the others.
	place *placement
}

// Bounds on what is read from an ELF image for its build ID: headers and
// notes are small, and a hostile size field must not drive allocation.
const (
	maxPhdrTable = 64 << 10
	maxNoteSeg   = 64 << 10
)

const deletedSuffix = " (deleted)"

// findModules finds the modules: from the NT_FILE mappings, or where the
// core has none, from the auxiliary vector and the dynamic linker's link
// map (placeModules). It adds the vDSO, puts the main executable first
// and looks for each module's file; with NT_FILE, it then checks the
// modules against the link map.
func (c *Core) findModules(opts Options) {
	placed := len(c.Mappings) == 0 && c.Format == "elf-linux"
	if placed {
		c.placeModules(opts)
	} else {
		c.modulesFromNTFile()
	}
	var vdsoMagic [4]byte
	if c.VDSO != 0 && (c.Format != minidumpFormat || c.readCore(c.VDSO, vdsoMagic[:]) == nil) {
		// A minidump holds the vDSO's image rarely (Breakpad lists it
		// as linux-gate.so without its bytes): without them it is no
		// module that can be read.
		c.addVDSO()
	}
	sort.SliceStable(c.Modules, func(i, j int) bool {
		a, b := c.Modules[i], c.Modules[j]
		if a.Main != b.Main {
			return a.Main
		}
		return a.Start < b.Start
	})
	var toResolve []*Module
	for _, mod := range c.Modules {
		if !mod.InCore && mod.place == nil {
			toResolve = append(toResolve, mod)
		}
	}
	c.resolveFiles(toResolve, opts)
	kept := c.Modules[:0]
	for _, mod := range c.Modules {
		if !mod.notELF {
			kept = append(kept, mod)
		}
	}
	c.Modules = kept
	sort.Slice(c.overlays, func(i, j int) bool { return c.overlays[i].start < c.overlays[j].start })
	if !placed && c.Format == "elf-linux" {
		c.checkLinkMap(opts)
	}
}

// modulesFromNTFile groups the NT_FILE mappings into modules, keeping the
// ELF objects.
func (c *Core) modulesFromNTFile() {
	byPath := map[string]*Module{}
	var mods []*Module
	for _, m := range c.Mappings {
		mod := byPath[m.Path]
		if mod == nil || (m.Offset == 0 && mod.Base != 0) {
			mod = &Module{Path: m.Path, Start: m.Start, End: m.End, FileOffset: m.Offset}
			byPath[m.Path] = mod
			mods = append(mods, mod)
		}
		mod.Mappings = append(mod.Mappings, m)
		if m.Start < mod.Start {
			mod.Start, mod.FileOffset = m.Start, m.Offset
		}
		mod.End = max(mod.End, m.End)
		if m.Offset == 0 && mod.Base == 0 {
			mod.Base = m.Start
		}
	}

	entry, _ := c.AuxVal(AT_ENTRY)
	phdr, _ := c.AuxVal(AT_PHDR)
	for _, mod := range mods {
		if mod.Base == 0 {
			continue // no header mapping: cannot be checked, rarely an ELF object
		}
		var magic [4]byte
		inCore := c.readCore(mod.Base, magic[:]) == nil
		if inCore && !isELF(magic[:]) {
			continue // a mapped data file
		}
		mod.headerUnknown = !inCore
		if !inCore {
			mod.BuildID = c.recordedBuildID(mod)
		}
		if inCore {
			id, err := imageBuildID(c.readCore, true, mod.Base)
			if err != nil {
				c.warnf("module %s: build ID not readable from core: %v", mod.Path, err)
			}
			mod.BuildID = id
		}
		for _, m := range mod.Mappings {
			if (entry != 0 && entry >= m.Start && entry < m.End) || (phdr != 0 && phdr >= m.Start && phdr < m.End) {
				mod.Main = true
			}
		}
		c.Modules = append(c.Modules, mod)
	}
}

// recordedID is a build ID a container records for the image at base.
type recordedID struct {
	base uint64
	id   string
}

// recordedBuildID is the build ID a container records for mod's image
// (see Core.buildIDs): the lowest image base within mod's mappings.
func (c *Core) recordedBuildID(mod *Module) string {
	i := sort.Search(len(c.buildIDs), func(i int) bool { return c.buildIDs[i].base >= mod.Start })
	if i < len(c.buildIDs) && c.buildIDs[i].base < mod.End {
		return c.buildIDs[i].id
	}
	return ""
}

func (c *Core) addVDSO() {
	mod := &Module{Path: "[vdso]", Start: c.VDSO, End: c.VDSO, Base: c.VDSO, InCore: true, Found: true}
	if i := c.findRange(c.VDSO); i >= 0 {
		mod.End = c.ranges[i].end
	}
	id, err := imageBuildID(c.readCore, true, c.VDSO)
	if err != nil {
		c.warnf("module [vdso]: %v", err)
		mod.Found = false
	}
	mod.BuildID = id
	mod.Mappings = []Mapping{{Start: mod.Start, End: mod.End, Path: mod.Path}}
	c.Modules = append(c.Modules, mod)
}

// underRoot joins a recorded path to the sysroot. The recorded path is
// cleaned as an absolute path first, as a chroot would resolve it, so that
// "../../etc/x" in a hostile NT_FILE stays inside the sysroot.
func underRoot(root, rec string) (string, bool) {
	p := filepath.Join(root, filepath.Clean("/"+rec))
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return p, true
}

// candidates lists the files that may hold mod, in the order they are
// tried: the executable argument (main executable only), the recorded path
// under the sysroot (or the recorded path itself when there is no
// sysroot), then each search directory with the base name.
func candidates(mod *Module, opts Options) []string {
	rec := strings.TrimSuffix(mod.Path, deletedSuffix)
	var out []string
	add := func(p string) {
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
	}
	if mod.Main && opts.Executable != "" {
		add(opts.Executable)
	}
	if opts.Sysroot != "" {
		if p, ok := underRoot(opts.Sysroot, rec); ok {
			add(p)
		}
	} else if rec != "" {
		add(rec)
	}
	if base := filepath.Base(rec); base != "." && base != "/" && base != ".." {
		for _, dir := range opts.SearchPath {
			add(filepath.Join(dir, base))
		}
	}
	if mod.BuildID != "" && opts.FindByBuildID != nil {
		for _, p := range opts.FindByBuildID(mod.BuildID) {
			add(p)
		}
	}
	return out
}

// candidateFile is a mapped candidate and what checking it needs.
type candidateFile struct {
	data    []byte
	elf     bool
	buildID string
	idErr   error
	loads   []progHeader // its PT_LOAD headers (fileLoads); shared, read only
	owned   bool         // mapped for this core alone: unmap when refused or closed
	id      FileID       // from the FileCache; zero when owned
}

// openCandidate maps path, through the batch's cache when there is one.
func openCandidate(path string, files *FileCache) (candidateFile, error) {
	if files != nil {
		f, err := files.get(path)
		if err != nil {
			return candidateFile{}, err
		}
		return candidateFile{data: f.data, elf: f.elf, buildID: f.buildID, idErr: f.idErr, loads: f.loads, id: f.id}, nil
	}
	data, err := mapPath(path)
	if err != nil {
		return candidateFile{}, err
	}
	cf := candidateFile{data: data, elf: isELF(data), owned: true}
	if cf.elf {
		cf.buildID, cf.idErr = imageBuildID(sliceReader(data), false, 0)
		cf.loads = fileLoads(data)
	}
	return cf, nil
}

func (cf candidateFile) release() {
	if cf.owned {
		unmap(cf.data)
	}
}

// resolveFile finds, checks and maps the file for mod and registers its
// mappings as overlays; when no local file is accepted, it fetches one by
// build ID (opts.FetchByBuildID).
func (c *Core) resolveFile(mod *Module, opts Options) {
	look := c.tryFiles(mod, candidates(mod, opts), opts)
	if look.found || !fetchable(mod, opts) {
		c.settle(mod, look, nil, opts)
		return
	}
	path, err := opts.FetchByBuildID(mod.BuildID)
	c.resolveFetched(mod, look, path, err, opts)
}

// fetchable reports whether mod's file can be fetched by build ID.
func fetchable(mod *Module, opts Options) bool {
	return mod.BuildID != "" && opts.FetchByBuildID != nil
}

// resolveFetched tries the file fetched for mod (path, or the fetch's
// error) after the local candidates failed as look says.
func (c *Core) resolveFetched(mod *Module, look lookResult, path string, err error, opts Options) {
	if err == nil {
		more := c.tryFiles(mod, []string{path}, opts)
		look.found, look.refusals = more.found, append(look.refusals, more.refusals...)
	}
	c.settle(mod, look, err, opts)
}

// resolveFiles resolves the files of mods: the local candidates of each
// first, then, all at once, fetches by build ID for those still missing
// (each fetch may wait on a network).
func (c *Core) resolveFiles(mods []*Module, opts Options) {
	var missing []*Module
	looks := map[*Module]lookResult{}
	for _, mod := range mods {
		look := c.tryFiles(mod, candidates(mod, opts), opts)
		if look.found || !fetchable(mod, opts) {
			c.settle(mod, look, nil, opts)
			continue
		}
		missing = append(missing, mod)
		looks[mod] = look
	}
	type fetched struct {
		path string
		err  error
	}
	got := make([]fetched, len(missing))
	var wg sync.WaitGroup
	for i, mod := range missing {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i].path, got[i].err = opts.FetchByBuildID(mod.BuildID)
		}()
	}
	wg.Wait()
	for i, mod := range missing {
		c.resolveFetched(mod, looks[mod], got[i].path, got[i].err, opts)
	}
}

// lookResult is what trying a module's candidate files found.
type lookResult struct {
	found    bool
	refusals []string // why each file refused was (build ID mismatch, not ELF)
	looked   []string // candidates that do not exist
	notELF   bool     // mod turned out to be a mapped data file
}

// tryFiles tries paths in turn for mod; the first accepted is mapped and
// its mappings registered as overlays.
func (c *Core) tryFiles(mod *Module, paths []string, opts Options) lookResult {
	var res lookResult
	for _, path := range paths {
		cf, err := openCandidate(path, opts.Files)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				res.looked = append(res.looked, path)
			} else {
				c.warnf("module %s: %v", mod.Path, err) // err names path
			}
			continue
		}
		reject := func(format string, args ...any) {
			res.refusals = append(res.refusals, fmt.Sprintf(format, args...))
			cf.release()
		}
		if !cf.elf {
			if mod.headerUnknown {
				// Not a module after all: a mapped data file.
				mod.notELF = true
				cf.release()
				res.notELF = true
				return res
			}
			reject("%s is not an ELF file", path)
			continue
		}
		fileID, err := cf.buildID, cf.idErr
		if err != nil {
			reject("%s: %v", path, err)
			continue
		}
		coreID := mod.BuildID
		var placedMaps []Mapping
		var placedBias uint64
		if mod.place != nil && mod.Mappings == nil {
			// Placed, and the core lacks the image's header: the file's
			// program headers say where its pages and notes are.
			if placedMaps, placedBias, coreID, err = c.candidateLayout(mod, cf.data); err != nil {
				reject("%s: %v", path, err)
				continue
			}
		}
		if coreID != "" && fileID == "" {
			reject("no build ID in %s (the core says %s)", path, coreID)
			continue
		}
		if coreID != "" && fileID != coreID {
			reject("build ID %s in core differs from %s in %s", coreID, fileID, path)
			continue
		}
		if coreID == "" {
			warning, refuse := c.checkWithoutBuildID(mod, path, cf.data)
			if refuse != "" {
				reject("%s", refuse)
				continue
			}
			if warning != "" {
				c.warnf("module %s: %s", mod.Path, warning)
			}
		}
		if placedMaps != nil {
			mod.place.bias, mod.place.biasKnown = placedBias, true
			mod.BuildID = coreID
			mod.setLayout(placedMaps)
		}
		mod.File, mod.FileBuildID, mod.FileID, mod.Found = path, fileID, cf.id, true
		if cf.owned {
			c.mapped = append(c.mapped, cf.data)
		}
		loads := cf.loads
		for _, m := range mod.Mappings {
			c.overlays = append(c.overlays, overlay{start: m.Start, end: m.End, off: m.Offset, data: cf.data, path: path,
				exec: execAt(loads, m.Offset)})
		}
		c.fileStatus[mod.Path] = ""
		res.found = true
		return res
	}
	return res
}

// reportUnresolved says what became of mod's file: which file was used
// when others were refused before it, or why there is none (then also
// in mod.Missing) and how to give it, with the fetch's error when one
// was tried.
func (c *Core) reportUnresolved(mod *Module, res lookResult, fetchErr error) {
	refused := strings.Join(res.refusals, "; ")
	switch {
	case res.notELF:
		return
	case res.found && refused != "" && mod.BuildID != "":
		c.warnf("module %s: %s: not used; using %s (build ID matches)", mod.Path, refused, mod.File)
		return
	case res.found && refused != "":
		c.warnf("module %s: %s: not used; using %s", mod.Path, refused, mod.File)
		return
	case res.found:
		return
	}
	fetched := ""
	if fetchErr != nil {
		fetched = "; " + fetchErr.Error()
	}
	if refused != "" {
		c.fileStatus[mod.Path] = "refused (build ID mismatch or not ELF)"
		hint := fileHint(mod, "give the original with --search-path DIR", fetchErr != nil)
		elsewhere := ""
		if len(res.looked) > 0 {
			elsewhere = "; not found in " + strings.Join(res.looked, ", ")
		}
		c.warnf("module %s: %s: not used%s%s; %s", mod.Path, refused, elsewhere, fetched, hint)
		mod.Missing = refused + "; " + hint
		return
	}
	c.fileStatus[mod.Path] = "not found"
	// An empty list: every candidate failed otherwise (warned about), or
	// there was none.
	why := "not found"
	if len(res.looked) > 0 {
		why = fmt.Sprintf("not found (looked in %s)", strings.Join(res.looked, ", "))
	}
	hint := fileHint(mod, "give it with --sysroot DIR or --search-path DIR", fetchErr != nil)
	c.warnf("module %s: %s%s; %s", mod.Path, why, fetched, hint)
	mod.Missing = why + "; " + hint
}

// fileHint says how to give coreunwind a module's file: give, the ways
// by name (--search-path, --sysroot), and by build ID from a debuginfod
// server when the core records one and none was asked.
func fileHint(mod *Module, give string, fetched bool) string {
	hint := give
	if mod.BuildID != "" && !fetched {
		hint += " or set DEBUGINFOD_URLS"
	}
	return hint
}

// sliceReader reads an image held in a byte slice by offset.
func sliceReader(b []byte) func(uint64, []byte) error {
	return func(off uint64, p []byte) error {
		s, whole := sliceAt(b, off, uint64(len(p)))
		if !whole {
			return fmt.Errorf("offset 0x%x: %d bytes past the end of the file", off, len(p))
		}
		copy(p, s)
		return nil
	}
}

// imageBuildID returns the GNU build ID (hex) of the ELF image whose header
// is at base, read with read. inMemory says that read takes process
// addresses (the image as loaded: notes are found at their p_vaddr plus the
// load bias); otherwise read takes file offsets. "" with a nil error means
// the image has no build ID note.
func imageBuildID(read func(uint64, []byte) error, inMemory bool, base uint64) (string, error) {
	desc, err := imageNote(read, inMemory, base, buildIDNote)
	return hex.EncodeToString(desc), err
}

// imageGoBuildID returns the Go build ID of the ELF image at base (read
// and inMemory as for imageBuildID), "" when it has none. A Go linker
// puts only its own note in the PT_NOTE segment (its GNU build ID, when
// it writes one, lies outside), so for a Go program the core's copy of
// the headers holds this one.
func imageGoBuildID(read func(uint64, []byte) error, inMemory bool, base uint64) (string, error) {
	desc, err := imageNote(read, inMemory, base, goBuildIDNote)
	return string(desc), err
}

// noteKind names an ELF note by owner and type.
type noteKind struct {
	name string
	typ  uint32
}

var (
	buildIDNote   = noteKind{"GNU", NTGNUBuildID}
	goBuildIDNote = noteKind{"Go", NTGoBuildID}
)

// imageNote returns the description of the first note of kind k in the
// PT_NOTE segments of the ELF image at base (read and inMemory as for
// imageBuildID), nil when there is none.
func imageNote(read func(uint64, []byte) error, inMemory bool, base uint64, k noteKind) ([]byte, error) {
	var hb [elf64HeaderSize]byte
	if err := read(base, hb[:elf.EI_NIDENT]); err != nil {
		return nil, err
	}
	n := elf32HeaderSize
	if elf.Class(hb[elf.EI_CLASS]) == elf.ELFCLASS64 {
		n = elf64HeaderSize
	}
	if err := read(base, hb[:n]); err != nil {
		return nil, err
	}
	h, err := parseFileHeader(hb[:n])
	if err != nil {
		return nil, err
	}
	if h.Phnum == 0 || h.Phnum == pnXNum || h.Phentsize < h.phdrSize() {
		return nil, nil
	}
	size := h.Phnum * h.Phentsize
	if size > maxPhdrTable {
		return nil, fmt.Errorf("program header table of %d bytes", size)
	}
	tab := make([]byte, size)
	if err := read(base+h.Phoff, tab); err != nil {
		return nil, fmt.Errorf("program headers: %w", err)
	}
	phs, err := parseProgHeaders(tab, h, h.Phnum, h.Phoff)
	if err != nil {
		return nil, err
	}
	bias := base
	if inMemory {
		for _, ph := range phs {
			if ph.Type == elf.PT_LOAD {
				bias = base - (ph.Vaddr - ph.Off)
				break
			}
		}
	}
	return notesDesc(read, phs, h.Order, k, func(ph progHeader) uint64 {
		if inMemory {
			return bias + ph.Vaddr
		}
		return base + ph.Off
	})
}

// notesBuildID looks for the GNU build ID note in the PT_NOTE segments of
// phs, reading each at the address at gives it. "" with a nil error means
// there is no build ID note.
func notesBuildID(read func(uint64, []byte) error, phs []progHeader, order binary.ByteOrder, at func(progHeader) uint64) (string, error) {
	desc, err := notesDesc(read, phs, order, buildIDNote, at)
	return hex.EncodeToString(desc), err
}

// notesDesc returns the description of the first non-empty note of kind
// k in the PT_NOTE segments of phs, each read at the address at gives
// it; nil with a nil error when there is none.
func notesDesc(read func(uint64, []byte) error, phs []progHeader, order binary.ByteOrder, k noteKind, at func(progHeader) uint64) ([]byte, error) {
	var firstErr error
	budget := uint64(maxNoteSeg) // for all note segments together
	for _, ph := range phs {
		if ph.Type != elf.PT_NOTE || ph.Filesz == 0 {
			continue
		}
		if budget == 0 {
			break
		}
		buf := make([]byte, min(ph.Filesz, budget))
		budget -= uint64(len(buf))
		if err := read(at(ph), buf); err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("note segment: %w", err)
			}
			continue
		}
		notes, _ := ParseNotes(buf, order, int(ph.Align))
		for _, nt := range notes {
			if nt.Name == k.name && nt.Type == k.typ && len(nt.Desc) > 0 {
				return nt.Desc, nil
			}
		}
	}
	return nil, firstErr
}

// fileLoads returns the PT_LOAD headers of an ELF file's image (nil when
// they cannot be read).
func fileLoads(data []byte) []progHeader {
	h, err := parseFileHeader(data)
	if err != nil || h.Phoff >= uint64(len(data)) {
		return nil
	}
	phs, _ := parseProgHeaders(data[h.Phoff:], h, h.Phnum, h.Phoff)
	var loads []progHeader
	for _, ph := range phs {
		if ph.Type == elf.PT_LOAD {
			loads = append(loads, ph)
		}
	}
	return loads
}

// execAt reports whether the PT_LOAD that maps file offset off (a
// mapping's page-aligned offset) is executable.
func execAt(loads []progHeader, off uint64) bool {
	for _, ph := range loads {
		start := ph.Off
		if a := ph.Align; a > 1 && a&(a-1) == 0 {
			start &^= a - 1 // the loader maps from the page holding p_offset
		}
		if off >= start && off < ph.Off+ph.Filesz {
			return ph.Flags&elf.PF_X != 0
		}
	}
	return false
}
