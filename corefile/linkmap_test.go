package corefile

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/coreunwind/coreunwind/internal/elfcore"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// stripNTFile writes a copy of core without its NT_FILE note, as qemu-user
// and kernels before 3.7 write cores: the other notes are packed into the
// same place and the note segment's size shrinks; memory is untouched.
func stripNTFile(t testing.TB, core, out string) {
	t.Helper()
	b, err := os.ReadFile(core)
	if err != nil {
		t.Fatal(err)
	}
	h, err := parseFileHeader(b)
	if err != nil {
		t.Fatal(err)
	}
	phs, err := parseProgHeaders(b[h.Phoff:], h, h.Phnum, h.Phoff)
	if err != nil {
		t.Fatal(err)
	}
	stripped := false
	for i, ph := range phs {
		if ph.Type != elf.PT_NOTE {
			continue
		}
		notes, err := ParseNotes(b[ph.Off:ph.Off+ph.Filesz], h.Order, int(ph.Align))
		if err != nil {
			t.Fatal(err)
		}
		var kept []elfcore.Note
		for _, n := range notes {
			if n.Type == NTFile && n.Name == "CORE" {
				stripped = true
				continue
			}
			kept = append(kept, elfcore.Note{Name: n.Name, Type: n.Type, Desc: n.Desc})
		}
		enc := elfcore.EncodeNotes(kept, h.Order, 4)
		seg := b[ph.Off : ph.Off+ph.Filesz]
		clear(seg)
		copy(seg, enc)
		// p_filesz: offset 32 (ELF64, 8 bytes) or 16 (ELF32, 4 bytes).
		at := h.Phoff + uint64(i*h.Phentsize)
		if h.Class == elf.ELFCLASS64 {
			h.Order.PutUint64(b[at+32:], uint64(len(enc)))
		} else {
			h.Order.PutUint32(b[at+16:], uint32(len(enc)))
		}
	}
	if !stripped {
		t.Fatalf("%s has no NT_FILE note to strip", core)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// kernelFixture is a dynamic PIE with worker threads linked against libm
// (an extra shared library), crashed once for every test of the package
// that needs it: its core and a copy without NT_FILE.
var kernelFixture struct {
	once                 sync.Once
	prog, core, stripped string
	skip                 string
	dir                  string
}

// kernelLinkMapCore returns the fixture's program, its kernel core and
// the copy without NT_FILE, building and crashing it on first use.
func kernelLinkMapCore(t testing.TB) (prog, core, stripped string) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		testenv.Unavailable(t, "the kernel-core link-map tests are for x86_64 hosts")
	}
	testenv.NeedCores(t)
	testenv.NeedTool(t, "gcc")
	f := &kernelFixture
	f.once.Do(func() {
		dir, err := os.MkdirTemp("", "linkmap")
		if err != nil {
			f.skip = err.Error()
			return
		}
		f.dir = dir
		f.prog = buildC(t, dir, "linkmap", "-Wl,--no-as-needed", "-lm")
		f.core, _ = crash(t, f.prog, "segv", "2")
		f.stripped = filepath.Join(dir, "core.stripped")
		stripNTFile(t, f.core, f.stripped)
	})
	if f.core == "" {
		t.Fatalf("link-map fixture not built (%s)", f.skip)
	}
	return f.prog, f.core, f.stripped
}

// TestMain runs the tests in a TMPDIR of their own, checked for
// leftover temporary files (testenv.RunCheckingTemp).
func TestMain(m *testing.M) {
	code := testenv.RunCheckingTemp(m)
	if kernelFixture.dir != "" {
		os.RemoveAll(kernelFixture.dir)
	}
	os.Exit(code)
}

// realPath resolves symbolic links (the link map names /lib/..., NT_FILE
// the /usr/lib/... file the kernel opened).
func realPath(t testing.TB, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return r
}

func linkMapWarnings(c *Core) []string {
	var out []string
	for _, w := range c.Warnings {
		if strings.Contains(w, "link map") {
			out = append(out, w)
		}
	}
	return out
}

// TestKernelCoreWithoutNTFile: the same core without NT_FILE gives the
// same modules (file, extent, base, build IDs) as with it, and no link
// map warning either way.
func TestKernelCoreWithoutNTFile(t *testing.T) {
	prog, core, stripped := kernelLinkMapCore(t)
	orig := must(Open(core, Options{Executable: prog}))
	defer orig.Close()
	c := must(Open(stripped, Options{Executable: prog}))
	defer c.Close()
	if len(c.Mappings) == 0 || len(orig.Mappings) == 0 {
		t.Fatalf("mappings: %d without NT_FILE, %d with", len(c.Mappings), len(orig.Mappings))
	}
	if w := linkMapWarnings(orig); len(w) > 0 {
		t.Errorf("link map warnings on a consistent core: %q", w)
	}
	if w := linkMapWarnings(c); len(w) > 0 {
		t.Errorf("link map warnings on the stripped core: %q", w)
	}
	key := func(m *Module) string {
		if m.InCore {
			return m.Path
		}
		if m.File == "" {
			t.Errorf("module %s: no file (warnings %q)", m.Path, c.Warnings)
			return m.Path
		}
		return realPath(t, m.File)
	}
	byFile := map[string]*Module{}
	for _, m := range c.Modules {
		byFile[key(m)] = m
	}
	if len(c.Modules) != len(orig.Modules) {
		t.Errorf("%d modules without NT_FILE, %d with:\n%v\n%v", len(c.Modules), len(orig.Modules), moduleNames(c), moduleNames(orig))
	}
	if !c.Modules[0].Main || c.Modules[0].File != prog {
		t.Errorf("first module %+v, want the main executable %s", c.Modules[0], prog)
	}
	for _, want := range orig.Modules {
		got := byFile[key(want)]
		if got == nil {
			t.Errorf("module %s (%s) missing without NT_FILE", want.Path, want.File)
			continue
		}
		if got.Main != want.Main || got.Start != want.Start || got.End != want.End || got.Base != want.Base ||
			got.FileOffset != want.FileOffset || got.BuildID != want.BuildID || got.FileBuildID != want.FileBuildID || !got.Found {
			t.Errorf("module %s:\nwithout NT_FILE %+v\nwith NT_FILE    %+v", want.Path, *got, *want)
		}
		if want.BuildID == "" && !want.InCore {
			t.Errorf("module %s has no build ID in the core: the comparison proves little", want.Path)
		}
	}
	if moduleNamed(c, "libm.so.6") == nil || moduleNamed(c, "libc.so.6") == nil {
		t.Errorf("libm or libc missing: %v", moduleNames(c))
	}
	// Memory beyond the core comes from the files as before: the text of
	// libc, which the kernel does not dump.
	libc := moduleNamed(c, "libc.so.6")
	buf, want := make([]byte, 256), make([]byte, 256)
	at := libc.Base + 0x30000
	if err := c.ReadMem(at, buf); err != nil {
		t.Errorf("libc text: %v", err)
	} else if err := orig.ReadMem(at, want); err != nil || !bytes.Equal(buf, want) {
		t.Errorf("libc text at %#x differs from the NT_FILE core's (%v)", at, err)
	}

	checkGDBSharedLibraries(t, "gdb", nil, nil, prog, stripped, c)

	// Another build of the program: its build ID differs from the one the
	// core's memory holds, so it is refused, as with NT_FILE.
	other := buildC(t, t.TempDir(), "linkmap", "-O0", "-Wl,--no-as-needed", "-lm")
	o := must(Open(stripped, Options{Executable: other}))
	defer o.Close()
	if m := o.Modules[0]; !m.Main || m.Found || !hasWarning(o, "build ID "+orig.Modules[0].BuildID, other) {
		t.Errorf("other build accepted or not warned about: %+v; warnings %q", *m, o.Warnings)
	}
}

// gdbSharedLib is one line of gdb's "info sharedlibrary".
type gdbSharedLib struct {
	from uint64 // start of .text, 0 when gdb did not load it
	path string
}

var gdbSharedLine = regexp.MustCompile(`^(0x[0-9a-f]+)?\s+(0x[0-9a-f]+)?\s+(Yes|No)(?: \(\*\))?\s+(/\S+)$`)

// gdbSharedLibraries runs gdb's "info sharedlibrary" on core, after the
// init commands (-iex, before the files load) and commands (-ex).
func gdbSharedLibraries(t *testing.T, gdb string, init, cmds []string, exe, core string) []gdbSharedLib {
	t.Helper()
	testenv.NeedTool(t, gdb)
	args := []string{"-nx", "-batch"}
	for _, p := range init {
		args = append(args, "-iex", p)
	}
	for _, p := range cmds {
		args = append(args, "-ex", p)
	}
	args = append(args, "-ex", "info sharedlibrary", exe, core)
	out, err := exec.Command(gdb, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", gdb, args, err, out)
	}
	var libs []gdbSharedLib
	for _, line := range strings.Split(string(out), "\n") {
		m := gdbSharedLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		l := gdbSharedLib{path: m[4]}
		if m[1] != "" {
			l.from = hexU(t, m[1])
		}
		libs = append(libs, l)
	}
	if len(libs) == 0 && !strings.Contains(string(out), "No shared libraries loaded") {
		t.Fatalf("%s lists no shared libraries:\n%s", gdb, out)
	}
	return libs
}

// checkGDBSharedLibraries compares the core's libraries with gdb's
// "info sharedlibrary": the same files (gdb names the file it loaded:
// under the sysroot when there is one), and gdb's "From" (the start of
// each library's .text) inside the module coreunwind reports.
func checkGDBSharedLibraries(t *testing.T, gdb string, init, cmds []string, exe, core string, c *Core) {
	t.Helper()
	libs := gdbSharedLibraries(t, gdb, init, cmds, exe, core)
	var want, got []string
	for _, l := range libs {
		want = append(want, l.path)
		m := moduleFiled(c, l.path)
		if m == nil {
			continue
		}
		if l.from == 0 || l.from < m.Start || l.from >= m.End {
			t.Errorf("%s: gdb's From %#x outside the module's %#x-%#x", l.path, l.from, m.Start, m.End)
		}
	}
	for _, m := range c.Modules {
		if !m.Main && !m.InCore {
			got = append(got, m.File)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("libraries %q, gdb says %q", got, want)
	}
	t.Logf("%s: libraries %q", gdb, got)
}

// moduleFiled returns the module whose accepted file is path.
func moduleFiled(c *Core, path string) *Module {
	for _, m := range c.Modules {
		if m.File == path {
			return m
		}
	}
	return nil
}

// TestLinkMapDisagreesWithNTFile edits the link map in copies of the core
// and expects the warnings that say so: libm's l_addr moved and libc's
// name changed; then libm unlinked from the list and libc's dynamic
// section pointed at unmapped memory.
func TestLinkMapDisagreesWithNTFile(t *testing.T) {
	prog, core, _ := kernelLinkMapCore(t)
	c := must(Open(core, Options{Executable: prog}))
	defer c.Close()
	phs, err := c.exeProgHeaders()
	if err != nil {
		t.Fatal(err)
	}
	phdr, _ := c.AuxVal(AT_PHDR)
	entries, problems := c.linkMap(phs, exeBias(phs, phdr))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	// fileOff is where the core file holds the byte at addr.
	fileOff := func(addr uint64) uint64 {
		i := c.findRange(addr)
		if i < 0 || addr-c.ranges[i].start >= c.ranges[i].avail {
			t.Fatalf("%#x is not in the core", addr)
		}
		return c.ranges[i].off + addr - c.ranges[i].start
	}
	find := func(base string) (int, linkMapEntry) {
		for i, e := range entries {
			if filepath.Base(e.path) == base {
				return i, e
			}
		}
		t.Fatalf("%s not in the link map: %+v", base, entries)
		return 0, linkMapEntry{}
	}
	im, libm := find("libm.so.6")
	_, libc := find("libc.so.6")
	if im == 0 {
		t.Fatalf("libm first in the link map: %+v", entries)
	}
	ntLibm, ntLibc := moduleNamed(c, "libm.so.6"), moduleNamed(c, "libc.so.6")
	const word = 8 // x86_64
	// edit writes a copy of the core changed by f and opens it.
	edit := func(name string, f func(b []byte)) *Core {
		b, err := os.ReadFile(core)
		if err != nil {
			t.Fatal(err)
		}
		f(b)
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		e := must(Open(path, Options{Executable: prog}))
		t.Cleanup(func() { e.Close() })
		if m := moduleNamed(e, "libm.so.6"); m == nil || !m.Found || m.Base != ntLibm.Base {
			t.Errorf("%s: libm module changed: %+v", name, m) // the modules still come from NT_FILE
		}
		return e
	}
	expect := func(e *Core, want ...[]string) {
		t.Helper()
		for _, w := range want {
			if !hasWarning(e, w...) {
				t.Errorf("no warning with %q in %q", w, e.Warnings)
			}
		}
	}

	movedBias := libm.addr + 0x10000
	e := edit("moved-renamed", func(b []byte) {
		binary.LittleEndian.PutUint64(b[fileOff(libm.at):], movedBias)
		copy(b[fileOff(libc.name)+uint64(strings.Index(libc.path, "libc.so.6")):], "libX")
	})
	expect(e,
		[]string{"link map: " + libm.path, "at bias " + hexAddr(movedBias), "but NT_FILE maps " + ntLibm.Path + " at bias " + hexAddr(libm.addr)},
		[]string{"link map: " + strings.Replace(libc.path, "libc.so.6", "libX.so.6", 1), "but NT_FILE maps " + ntLibc.Path + " there"})

	e = edit("unlinked", func(b []byte) {
		// The entry before libm now leads past it; libc's l_ld points
		// nowhere.
		binary.LittleEndian.PutUint64(b[fileOff(entries[im-1].at+3*word):], c.word(mustRead(t, c, libm.at+3*word)))
		binary.LittleEndian.PutUint64(b[fileOff(libc.at+2*word):], 0x1000)
	})
	expect(e,
		[]string{"module " + ntLibm.Path, "is not in the dynamic linker's link map"},
		[]string{"link map: " + libc.path, "no NT_FILE mapping holds its dynamic section at 0x1000"})

	// The consistent core: no such warning.
	if w := linkMapWarnings(c); len(w) > 0 {
		t.Errorf("link map warnings on the unedited core: %q", w)
	}
}

func mustRead(t *testing.T, c *Core, addr uint64) []byte {
	t.Helper()
	b := make([]byte, c.ptrSize)
	if err := c.ReadMem(addr, b); err != nil {
		t.Fatal(err)
	}
	return b
}

func hexAddr(v uint64) string { return fmt.Sprintf("%#x", v) }

// TestLoaderFromATBase: before the dynamic linker fills in DT_DEBUG (here:
// the entry zeroed in a copy of the core without NT_FILE) there is no link
// map; the loader is still placed from AT_BASE, under its PT_INTERP path.
func TestLoaderFromATBase(t *testing.T) {
	prog, core, stripped := kernelLinkMapCore(t)
	orig := must(Open(core, Options{Executable: prog}))
	defer orig.Close()
	c := must(Open(stripped, Options{Executable: prog}))
	defer c.Close()
	phs, err := c.exeProgHeaders()
	if err != nil {
		t.Fatal(err)
	}
	bias := c.Modules[0].place.bias
	var debugAt uint64
	for _, ph := range phs {
		if ph.Type != elf.PT_DYNAMIC {
			continue
		}
		for at := bias + ph.Vaddr; at < bias+ph.Vaddr+ph.Memsz; at += 16 {
			if c.word(mustRead(t, c, at)) == dtDebug {
				debugAt = at + 8
			}
		}
	}
	i := c.findRange(debugAt)
	if debugAt == 0 || i < 0 {
		t.Fatalf("DT_DEBUG at %#x not in the core", debugAt)
	}
	b, err := os.ReadFile(stripped)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(b[c.ranges[i].off+debugAt-c.ranges[i].start:], 0)
	path := filepath.Join(t.TempDir(), "core.nodebug")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	e := must(Open(path, Options{Executable: prog}))
	defer e.Close()
	base, _ := e.AuxVal(AT_BASE)
	want := moduleNamed(orig, "ld-linux-x86-64.so.2")
	ld := moduleNamed(e, "ld-linux-x86-64.so.2")
	if len(e.Modules) != 3 || !e.Modules[0].Main || moduleNamed(e, "[vdso]") == nil || ld == nil {
		t.Fatalf("modules %v, want the executable, the loader and the vDSO", moduleNames(e))
	}
	if ld.Path != "/lib64/ld-linux-x86-64.so.2" || ld.Base != base || !ld.Found || want == nil ||
		ld.Start != want.Start || ld.End != want.End || ld.BuildID != want.BuildID {
		t.Errorf("loader %+v, want it at AT_BASE %#x like %+v", *ld, base, want)
	}
}
