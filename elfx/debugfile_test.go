package elfx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// splitDebug builds the C program, moves its DWARF and .symtab into a
// separate file with objcopy --only-keep-debug and strips the binary.
func splitDebug(t *testing.T, dir string) (stripped, debug string) {
	t.Helper()
	objcopy := testenv.NeedTool(t, "objcopy")
	strip := testenv.NeedTool(t, "strip")
	bin := compile(t, dir, "gcc", "prog", "c", cProgram, "-O2", "-g")
	debug = filepath.Join(dir, "prog.debug")
	run(t, dir, objcopy, "--only-keep-debug", bin, debug)
	stripped = filepath.Join(dir, "prog.stripped")
	run(t, dir, strip, "--strip-debug", "--strip-unneeded", "-o", stripped, bin)
	return stripped, debug
}

// checkAttached verifies the stripped object symbolizes like the
// unstripped build, per addr2line on the debug file.
func checkAttached(t *testing.T, o *Object, debug string) {
	t.Helper()
	if o.hasDWARF() {
		t.Fatal("stripped binary still has DWARF")
	}
	if _, ok := o.LookupSymbol("recurse"); !ok {
		t.Error("recurse (only in the debug file's .symtab) not found")
	}
	addrs := instructionAddrs(t, o.Path(), nil)
	inl := compareWithAddr2line(t, o, debug, addrs)
	if inl == 0 {
		t.Error("no inline chains via the debug file")
	}
	if _, _, err := o.UnwindTables(); err != nil {
		t.Errorf("UnwindTables: %v", err)
	}
	eh, _, _ := o.UnwindTables()
	if eh == nil {
		t.Error(".eh_frame must come from the binary")
	}
}

func TestDebugFileByBuildID(t *testing.T) {
	dir := t.TempDir()
	stripped, debug := splitDebug(t, dir)
	o := mustOpen(t, stripped)
	id := o.BuildID()
	if len(id) < 8 {
		t.Fatalf("build ID %q", id)
	}
	// The build ID must agree with readelf's.
	if out := run(t, dir, testenv.NeedTool(t, "readelf"), "-n", stripped); !strings.Contains(out, "Build ID: "+id) {
		t.Fatalf("readelf -n does not show build ID %s:\n%s", id, out)
	}
	dbgDir := filepath.Join(dir, "debugroot")
	want := filepath.Join(dbgDir, ".build-id", id[:2], id[2:]+".debug")
	if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(debug, want); err != nil {
		t.Fatal(err)
	}
	// No debuglink was added, and the file is not next to the binary:
	// only the build-id path can find it.
	got, err := o.AttachDebugFile([]string{filepath.Join(dir, "elsewhere"), dbgDir})
	if err != nil || got != want {
		t.Fatalf("AttachDebugFile = %q, %v; want %q", got, err, want)
	}
	if o.DebugFile() != want {
		t.Errorf("DebugFile = %q", o.DebugFile())
	}
	checkAttached(t, o, want)
}

func TestDebugFileByDebuglink(t *testing.T) {
	for _, where := range []string{"same", ".debug", "debugdir", "debugdir-by-name"} {
		t.Run(where, func(t *testing.T) {
			dir := t.TempDir()
			stripped, debug := splitDebug(t, dir)
			run(t, dir, testenv.NeedTool(t, "objcopy"), "--add-gnu-debuglink="+debug, stripped)
			dbgDir := filepath.Join(dir, "debugroot")
			var want string
			switch where {
			case "same":
				want = debug
			case ".debug":
				want = filepath.Join(dir, ".debug", "prog.debug")
			case "debugdir":
				want = filepath.Join(dbgDir, dir, "prog.debug")
			case "debugdir-by-name":
				want = filepath.Join(dbgDir, "prog.debug")
			}
			if want != debug {
				if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(debug, want); err != nil {
					t.Fatal(err)
				}
			}
			// Remove the build ID route: the debug dir has no .build-id.
			o := mustOpen(t, stripped)
			got, err := o.AttachDebugFile([]string{dbgDir})
			if err != nil || got != want {
				t.Fatalf("AttachDebugFile = %q, %v; want %q", got, err, want)
			}
			checkAttached(t, o, want)
		})
	}
}

func TestDebuglinkCRCMismatchRejected(t *testing.T) {
	dir := t.TempDir()
	stripped, debug := splitDebug(t, dir)
	run(t, dir, testenv.NeedTool(t, "objcopy"), "--add-gnu-debuglink="+debug, stripped)
	// Corrupt one byte of the debug file after the CRC was recorded.
	data, err := os.ReadFile(debug)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0xff
	if err := os.WriteFile(debug, data, 0o644); err != nil {
		t.Fatal(err)
	}
	o := mustOpen(t, stripped)
	got, err := o.AttachDebugFile([]string{filepath.Join(dir, "none")})
	if err == nil {
		t.Fatalf("AttachDebugFile accepted %q with a wrong CRC", got)
	}
	if !errors.Is(err, ErrNoDebugFile) || !strings.Contains(err.Error(), "CRC") || !strings.Contains(err.Error(), debug) {
		t.Errorf("error %q should wrap ErrNoDebugFile and name the file and the CRC mismatch", err)
	}
	if o.DebugFile() != "" {
		t.Errorf("DebugFile = %q after rejection", o.DebugFile())
	}
}

// TestMissingDebugFile: an object whose debug file was not found says
// what was looked for and what was rejected; one that found it, or has
// DWARF of its own, says nothing. An empty (non-nil) list of debug dirs
// searches none of the defaults.
func TestMissingDebugFile(t *testing.T) {
	dir := t.TempDir()
	stripped, debug := splitDebug(t, dir)
	run(t, dir, testenv.NeedTool(t, "objcopy"), "--add-gnu-debuglink="+debug, stripped)
	wrongDir := filepath.Join(dir, "wrong")
	if err := os.MkdirAll(wrongDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(debug, filepath.Join(wrongDir, "prog.debug")); err != nil {
		t.Fatal(err)
	}
	// The same name, other contents: the CRC check must reject it.
	if err := os.WriteFile(debug, []byte("not the debug file"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := mustOpen(t, stripped)
	if _, err := o.AttachDebugFile([]string{}); err == nil {
		t.Fatal("AttachDebugFile found a debug file")
	}
	miss := o.MissingDebugFile()
	if miss == nil {
		t.Fatal("MissingDebugFile = nil for an object without its debug file")
	}
	if miss.BuildID != o.BuildID() || miss.DebugLink != "prog.debug" || len(miss.Dirs) != 0 || len(miss.Rejected) != 1 ||
		!strings.Contains(miss.Rejected[0].Error(), debug) || !strings.Contains(miss.Looked(), "no debug directory searched") {
		t.Errorf("MissingDebugFile = %+v (%s)", miss, miss.Looked())
	}
	if _, err := o.AttachDebugFile([]string{wrongDir}); err != nil {
		t.Fatalf("AttachDebugFile(%s): %v", wrongDir, err)
	}
	if miss := o.MissingDebugFile(); miss != nil {
		t.Errorf("MissingDebugFile = %v once attached", miss)
	}
	bin := filepath.Join(dir, "prog")
	if miss := mustOpen(t, bin).MissingDebugFile(); miss != nil {
		t.Errorf("MissingDebugFile = %v for %s, which has DWARF", miss, bin)
	}
}

func TestDebugFileBuildIDMismatchRejected(t *testing.T) {
	dir := t.TempDir()
	stripped, _ := splitDebug(t, dir)
	// A debug file from a different build placed under this build ID.
	other := compile(t, t.TempDir(), "gcc", "other", "c", "int main(void){return 1;}\n", "-g")
	o := mustOpen(t, stripped)
	id := o.BuildID()
	dbgDir := filepath.Join(dir, "debugroot")
	p := filepath.Join(dbgDir, ".build-id", id[:2], id[2:]+".debug")
	os.MkdirAll(filepath.Dir(p), 0o755)
	data, _ := os.ReadFile(other)
	os.WriteFile(p, data, 0o644)
	if got, err := o.AttachDebugFile([]string{dbgDir}); err == nil || !strings.Contains(err.Error(), "build ID") {
		t.Fatalf("AttachDebugFile = %q, %v; want a build ID mismatch error", got, err)
	}
}

func TestNoDebugFile(t *testing.T) {
	dir := t.TempDir()
	stripped, _ := splitDebug(t, dir)
	o := mustOpen(t, stripped)
	if _, err := o.AttachDebugFile([]string{filepath.Join(dir, "none")}); !errors.Is(err, ErrNoDebugFile) {
		t.Fatalf("err = %v; want ErrNoDebugFile", err)
	}
	// Symbols from .dynsym still work; no DWARF means no frames.
	if fr, err := o.SourceFrames(0x1000); err != nil || len(fr) != 0 {
		t.Errorf("SourceFrames = %v, %v", fr, err)
	}
}

// TestFetchedDebugFile: a Cache with a debug fetcher (debuginfod) asks
// for the debug file of an object that has none installed and no DWARF,
// and attaches what comes back only if its build ID matches; a failed
// fetch is Open's error beside a usable object. With unwindOnly, an
// object with .eh_frame is not worth a fetch.
func TestFetchedDebugFile(t *testing.T) {
	dir := t.TempDir()
	stripped, debug := splitDebug(t, dir)
	none := []string{filepath.Join(dir, "none")}
	var asked []string
	fetchFrom := func(path string, err error) DebugFetcher {
		return func(id string) (string, error) {
			asked = append(asked, id)
			return path, err
		}
	}

	c := NewCache()
	defer c.Close()
	c.SetDebugFetcher(fetchFrom(debug, nil), false)
	o, err := c.Open(stripped, none)
	if err != nil {
		t.Fatal(err)
	}
	if o.DebugFile() != debug || len(asked) != 1 || asked[0] != o.BuildID() {
		t.Fatalf("debug file %q after fetches %q", o.DebugFile(), asked)
	}
	checkAttached(t, o, debug)

	other := compile(t, t.TempDir(), "gcc", "other", "c", "int main(void){return 1;}\n", "-g")
	c2 := NewCache()
	defer c2.Close()
	c2.SetDebugFetcher(fetchFrom(other, nil), false)
	if o, err := c2.Open(stripped, none); o == nil || o.DebugFile() != "" || err == nil || !strings.Contains(err.Error(), "build ID") {
		t.Errorf("another build's debug file: %v, %v", o, err)
	}

	c3 := NewCache()
	defer c3.Close()
	c3.SetDebugFetcher(fetchFrom("", errors.New("not found on any server")), false)
	if o, err := c3.Open(stripped, none); o == nil || err == nil {
		t.Errorf("failed fetch: %v, %v", o, err)
	}

	asked = nil
	c4 := NewCache()
	defer c4.Close()
	c4.SetDebugFetcher(fetchFrom(debug, nil), true)
	if _, err := c4.Open(stripped, none); err != nil || len(asked) != 0 {
		t.Errorf("unwind only, with .eh_frame: %v, asked %q", err, asked)
	}
	// Installed debug files come first.
	c5 := NewCache()
	defer c5.Close()
	c5.SetDebugFetcher(fetchFrom(debug, nil), false)
	id := o.BuildID()
	root := filepath.Join(t.TempDir(), "debug")
	p := filepath.Join(root, ".build-id", id[:2], id[2:]+".debug")
	os.MkdirAll(filepath.Dir(p), 0o755)
	data, _ := os.ReadFile(debug)
	os.WriteFile(p, data, 0o644)
	if _, err := c5.Open(stripped, []string{root}); err != nil || len(asked) != 0 {
		t.Errorf("with a local debug file: %v, asked %q", err, asked)
	}
}

// TestDeferredDebugFile checks that an unwind-only cache leaves the debug
// file for later and attaches it only when .eh_frame misses: a function
// built without unwind tables has its CFI only in .debug_frame, which
// objcopy --only-keep-debug keeps in the debug file.
func TestDeferredDebugFile(t *testing.T) {
	dir := t.TempDir()
	noEH := compile(t, dir, "gcc", "noeh.o", "c", `int no_eh(int x) { return x * 3 + 1; }`,
		"-c", "-O1", "-g", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables")
	bin := compile(t, dir, "gcc", "prog", "c", `
int no_eh(int);
int main(int argc, char **argv) { return no_eh(argc); }
`, "-O1", "-g", noEH)
	objcopy := testenv.NeedTool(t, "objcopy")
	debug := filepath.Join(dir, "prog.debug")
	run(t, dir, objcopy, "--only-keep-debug", bin, debug)
	stripped := filepath.Join(dir, "prog.stripped")
	run(t, dir, testenv.NeedTool(t, "strip"), "--strip-debug", "-o", stripped, bin)
	if out := run(t, dir, testenv.NeedTool(t, "readelf"), "-S", stripped); strings.Contains(out, ".debug_frame") {
		t.Fatalf("stripped binary kept .debug_frame:\n%s", out)
	}
	plain := mustOpen(t, stripped)
	id := plain.BuildID()
	dbgRoot := filepath.Join(dir, "debugroot")
	want := filepath.Join(dbgRoot, ".build-id", id[:2], id[2:]+".debug")
	if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(debug, want); err != nil {
		t.Fatal(err)
	}
	mainSym, ok := plain.LookupSymbol("main")
	noEHSym, ok2 := plain.LookupSymbol("no_eh")
	if !ok || !ok2 {
		t.Fatal("main or no_eh not in the stripped binary's .symtab")
	}
	mainAddr, noEHAddr := mainSym.Addr, noEHSym.Addr

	c := NewCache()
	defer c.Close()
	c.SetUnwindOnly(true)
	o, err := c.Open(stripped, []string{dbgRoot})
	if err != nil {
		t.Fatal(err)
	}
	if o.DebugFile() != "" {
		t.Fatalf("debug file %s attached at Open of an unwind-only cache", o.DebugFile())
	}
	if fde, err := o.FindFDE(mainAddr); err != nil || fde.Begin != mainAddr {
		t.Fatalf("FindFDE(main %#x) = %+v, %v", mainAddr, fde, err)
	}
	if o.DebugFile() != "" {
		t.Errorf("debug file %s attached though .eh_frame covers main", o.DebugFile())
	}
	fde, err := o.FindFDE(noEHAddr)
	if err != nil || fde.Begin != noEHAddr {
		t.Fatalf("FindFDE(no_eh %#x) = %+v, %v; want the debug file's .debug_frame entry", noEHAddr, fde, err)
	}
	if o.DebugFile() != want {
		t.Errorf("DebugFile = %q after an .eh_frame miss, want %q", o.DebugFile(), want)
	}

	// Threads walked in parallel miss at once: every one of them finds
	// the entry, whichever attached the debug file.
	for round := 0; round < 20; round++ {
		c := NewCache()
		c.SetUnwindOnly(true)
		o, err := c.Open(stripped, []string{dbgRoot})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if fde, err := o.FindFDE(noEHAddr); err != nil {
					errs[i] = err
				} else if fde.Begin != noEHAddr {
					errs[i] = fmt.Errorf("FDE at %#x", fde.Begin)
				}
			}()
		}
		wg.Wait()
		c.Close()
		if err := errors.Join(errs...); err != nil {
			t.Fatalf("round %d: concurrent FindFDE(no_eh %#x): %v", round, noEHAddr, err)
		}
	}
}

// TestDebuglinkFIFORejected: a named pipe where .gnu_debuglink points
// (or at the build-ID path) is rejected at once, naming what it is; it
// used to block in open(2) for a writer.
func TestDebuglinkFIFORejected(t *testing.T) {
	dir := t.TempDir()
	stripped, debug := splitDebug(t, dir)
	run(t, dir, testenv.NeedTool(t, "objcopy"), "--add-gnu-debuglink="+debug, stripped)
	if err := os.Remove(debug); err != nil {
		t.Fatal(err)
	}
	testenv.Mkfifo(t, debug)
	o := mustOpen(t, stripped)
	id := o.BuildID()
	dbgDir := filepath.Join(dir, "debugroot")
	byID := filepath.Join(dbgDir, ".build-id", id[:2], id[2:]+".debug")
	if err := os.MkdirAll(filepath.Dir(byID), 0o755); err != nil {
		t.Fatal(err)
	}
	testenv.Mkfifo(t, byID)
	testenv.NoHang(t, 10*time.Second, "AttachDebugFile", func() {
		got, err := o.AttachDebugFile([]string{dbgDir})
		if err == nil {
			t.Fatalf("AttachDebugFile attached %q", got)
		}
		for _, p := range []string{debug, byID} {
			if !strings.Contains(err.Error(), p+": not a regular file (named pipe)") {
				t.Errorf("error %q does not say that %s is a named pipe", err, p)
			}
		}
	}, debug, byID)
}

// TestDeferredDebugFileFIFOReported: a named pipe found where a debug
// file is looked for, by a cache that defers the debug file until it is
// needed (unwinding only), is named among the rejected candidates of
// MissingDebugFile, as AttachDebugFile names it: the warning must say why
// the file that is there was not used.
func TestDeferredDebugFileFIFOReported(t *testing.T) {
	dir := t.TempDir()
	stripped, debug := splitDebug(t, dir)
	run(t, dir, testenv.NeedTool(t, "objcopy"), "--add-gnu-debuglink="+debug, stripped)
	if err := os.Remove(debug); err != nil {
		t.Fatal(err)
	}
	testenv.Mkfifo(t, debug)
	id := mustOpen(t, stripped).BuildID()
	dbgDir := filepath.Join(dir, "debugroot")
	byID := filepath.Join(dbgDir, ".build-id", id[:2], id[2:]+".debug")
	if err := os.MkdirAll(filepath.Dir(byID), 0o755); err != nil {
		t.Fatal(err)
	}
	testenv.Mkfifo(t, byID)
	c := NewCache()
	defer c.Close()
	c.SetUnwindOnly(true)
	testenv.NoHang(t, 10*time.Second, "MissingDebugFile of a deferred debug file", func() {
		o, err := c.Open(stripped, []string{dbgDir})
		if err != nil {
			t.Fatal(err)
		}
		miss := o.MissingDebugFile()
		if miss == nil {
			t.Fatal("MissingDebugFile = nil with named pipes for debug files")
		}
		for _, p := range []string{debug, byID} {
			if !strings.Contains(miss.Error(), p+": not a regular file (named pipe)") {
				t.Errorf("MissingDebugFile %q does not say that %s is a named pipe", miss, p)
			}
		}
	}, debug, byID)
}
