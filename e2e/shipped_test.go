package e2e

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/refbt"
)

// A mappedFile is one NT_FILE entry of a Linux core: a file-backed mapping.
type mappedFile struct {
	Start, End uint64
	Path       string
}

// coreMappedFiles reads the NT_FILE note of a 64-bit little-endian Linux
// core, independently of coreunwind's own reader.
func coreMappedFiles(t *testing.T, core string) []mappedFile {
	t.Helper()
	f, err := elf.Open(core)
	if err != nil {
		t.Fatalf("opening %s: %v", core, err)
	}
	defer f.Close()
	le := binary.LittleEndian
	for _, p := range f.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		data := make([]byte, p.Filesz)
		if _, err := p.ReadAt(data, 0); err != nil {
			t.Fatalf("reading notes of %s: %v", core, err)
		}
		for len(data) >= 12 {
			nsz, dsz, typ := uint64(le.Uint32(data)), uint64(le.Uint32(data[4:])), le.Uint32(data[8:])
			if uint64(len(data)) < 12+align4(nsz)+align4(dsz) {
				break
			}
			desc := data[12+align4(nsz) : 12+align4(nsz)+dsz]
			data = data[12+align4(nsz)+align4(dsz):]
			if typ != 0x46494c45 || len(desc) < 16 { // NT_FILE
				continue
			}
			count := le.Uint64(desc)
			if count > uint64(len(desc))/24 {
				t.Fatalf("%s: NT_FILE claims %d entries in %d bytes", core, count, len(desc))
			}
			names := strings.Split(string(desc[16+24*count:]), "\x00")
			var out []mappedFile
			for i := uint64(0); i < count && int(i) < len(names); i++ {
				e := desc[16+24*i:]
				out = append(out, mappedFile{le.Uint64(e), le.Uint64(e[8:]), names[i]})
			}
			return out
		}
	}
	t.Fatalf("%s has no NT_FILE note", core)
	return nil
}

// sameLibraries reports whether every library listed in libs.txt (path
// and build ID when the core was made) has the same build ID here.
func sameLibraries(t *testing.T, libsTxt string) (bool, string) {
	t.Helper()
	b, err := os.ReadFile(libsTxt)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			continue
		}
		if _, err := os.Stat(fields[0]); err != nil {
			return false, fields[0] + " is missing here"
		}
		if id := buildID(t, fields[0]); id != fields[1] {
			return false, fields[0] + " has build ID " + id + ", the core was made with " + fields[1]
		}
	}
	return true, ""
}

// TestShippedCores runs coreunwind on the cores in testdata/cores (made by
// make.sh) and compares with the gdb and eu-stack output stored beside
// them. The static core must match gdb frame for frame. The dynamic ones
// are compared fully when this machine has the libraries they were made
// with; otherwise only the frames in the executable are checked, since the
// libraries' code is not in a kernel core.
func TestShippedCores(t *testing.T) {
	t.Parallel()
	root := filepath.Join(repoRoot, "testdata", "cores")
	for _, tc := range []struct{ dir, exe string }{
		{"segv-static", "segv"},
		{"abort-dyn", "abort"},
		{"threads-dyn", "threads"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(root, tc.dir)
			core, exe := filepath.Join(dir, "core"), filepath.Join(dir, tc.exe)
			gdbOut, err := os.ReadFile(filepath.Join(dir, "expected.gdb.txt"))
			if err != nil {
				t.Fatal(err)
			}
			euOut, err := os.ReadFile(filepath.Join(dir, "expected.eu-stack.txt"))
			if err != nil {
				t.Fatal(err)
			}
			gdb, eu := refbt.ParseGDB(string(gdbOut)), refbt.ParseEuStack(string(euOut))
			if len(gdb) == 0 || len(eu) == 0 {
				t.Fatalf("stored outputs have no threads (gdb %d, eu-stack %d)", len(gdb), len(eu))
			}
			rep, _ := unwindJSON(t, nil, core, exe)
			if len(rep.Threads) != len(gdb) {
				t.Errorf("coreunwind reports %d threads, gdb %d", len(rep.Threads), len(gdb))
			}
			libs := filepath.Join(dir, "libs.txt")
			if _, err := os.Stat(libs); err != nil { // static: everything is in the executable
				compareWithReferences(t, gdb, eu, rep)
				expectSameAsGDB(t, gdb, rep)
				return
			}
			// The executable's frames are checked in any case (a subset of
			// the full comparison, so this also keeps that path tested).
			compareExecutableFrames(t, gdb, eu, rep, coreMappedFiles(t, core))
			if same, why := sameLibraries(t, libs); same {
				compareWithReferences(t, gdb, eu, rep)
			} else {
				t.Logf("%s; compared only the frames in %s", why, tc.exe)
			}
		})
	}
}

// expectSameAsGDB checks every thread frame by frame against gdb: same
// number of frames, same pcs, same function names.
func expectSameAsGDB(t *testing.T, gdb map[int]*refbt.Thread, rep *report) {
	t.Helper()
	for tid, g := range gdb {
		th := rep.thread(tid)
		if th == nil {
			continue // reported by compareWithReferences
		}
		frames := trimUnnamed(g.Frames)
		if len(th.Frames) != len(frames) {
			t.Errorf("thread %d: %d frames, gdb %d\n%s", tid, len(th.Frames), len(frames), formatFrames(th, 40))
		}
		for i := 0; i < len(frames) && i < len(th.Frames); i++ {
			pc, _ := th.Frames[i].pc()
			if pc != frames[i].PC || normalizeFunc(th.Frames[i].Function) != normalizeFunc(frames[i].Func) {
				t.Errorf("thread %d frame %d:\n  gdb:        %s\n  coreunwind: %s", tid, i, frames[i].Raw, th.Frames[i])
			}
		}
	}
}

// compareExecutableFrames checks the frames both tools agree on whose pc
// lies in the executable's mappings: coreunwind must show them in order,
// with the same function names.
func compareExecutableFrames(t *testing.T, gdb, eu map[int]*refbt.Thread, rep *report, files []mappedFile) {
	t.Helper()
	exePath := ""
	if len(files) > 0 {
		exePath = files[0].Path // the kernel lists the executable's mappings first
	}
	inExe := func(pc uint64) bool {
		for _, f := range files {
			if f.Path == exePath && pc >= f.Start && pc < f.End {
				return true
			}
		}
		return false
	}
	for tid, g := range gdb {
		e := eu[tid]
		th := rep.thread(tid)
		if e == nil || th == nil {
			t.Errorf("thread %d: missing from eu-stack's output or coreunwind's report", tid)
			continue
		}
		next := 0
		for _, a := range alignReferences(g.Frames, e.Frames) {
			if !inExe(a.PC) {
				continue
			}
			found := -1
			for k := next; k < len(th.Frames); k++ {
				if pc, _ := th.Frames[k].pc(); pc == a.PC {
					found = k
					break
				}
			}
			if found < 0 {
				t.Errorf("thread %d: executable frame missing from coreunwind:\n  gdb:      %s\n  eu-stack: %s\n%s",
					tid, g.Frames[a.G].Raw, e.Frames[a.E].Raw, formatFrames(th, 40))
				break
			}
			if a.Func != "" && normalizeFunc(th.Frames[found].Function) != a.Func {
				t.Errorf("thread %d: function differs:\n  gdb:        %s\n  coreunwind: %s", tid, g.Frames[a.G].Raw, th.Frames[found])
			}
			next = found + 1
		}
	}
}
