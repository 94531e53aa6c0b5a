package elfx

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestAltLinkFrames builds e2e's units program and has dwz -m move what
// it shares with a copy of itself into a supplementary file, named in
// each of the ways the file is found: .gnu_debugaltlink with a path
// relative to the binary, DWARF 5's .debug_sup, and a path that no
// longer exists, the file then found by build ID under a debug
// directory. dwz changes no code: at every instruction the frames must
// be those of the build dwz did not touch, names read from the
// supplementary file (namespaces included) and all.
func TestAltLinkFrames(t *testing.T) {
	src := filepath.Join("..", "e2e", "testdata", "progs")
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	args := []string{"-O2", "-g", "-o", plain}
	for _, f := range []string{"units_main.cc", "units_walk.cc", "units_leaf.cc"} {
		args = append(args, filepath.Join(src, f))
	}
	testenv.Build(t, "g++", args...)
	dwz := testenv.NeedTool(t, "dwz")
	image, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	want := mustOpen(t, plain)
	addrs := instructionAddrs(t, plain, func(fn string) bool {
		return userCode(fn) || strings.Contains(fn, "units") // _ZN5units4leaf...
	})
	for _, tc := range []struct {
		name    string
		dwzArgs []string // before the two files
		move    bool     // move the supplementary file under .build-id/
	}{
		{"gnu-relative", []string{"-m", "common.dwz", "-r"}, false},
		{"dwarf5", []string{"-5", "-m", "common.sup", "-M", "common.sup"}, false},
		{"gnu-build-id", []string{"-m", "common.dwz", "-M", "/nonexistent/common.dwz"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := filepath.Join(dir, tc.name)
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			exe, twin := filepath.Join(d, "units"), filepath.Join(d, "twin")
			for _, f := range []string{exe, twin} {
				if err := os.WriteFile(f, image, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			run(t, d, dwz, append(tc.dwzArgs, "units", "twin")...)
			debugDirs := []string{filepath.Join(d, "debug")}
			if tc.move {
				alt := mustOpen(t, filepath.Join(d, "common.dwz"))
				id := alt.BuildID()
				to := filepath.Join(debugDirs[0], ".build-id", id[:2], id[2:]+".debug")
				if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(filepath.Join(d, "common.dwz"), to); err != nil {
					t.Fatal(err)
				}
			}
			c := NewCache()
			defer c.Close()
			o, err := c.Open(exe, debugDirs)
			if err != nil {
				t.Fatal(err)
			}
			scaled := false
			for _, a := range addrs {
				w, werr := want.SourceFrames(a)
				g, gerr := o.SourceFrames(a)
				if (werr != nil) != (gerr != nil) || !reflect.DeepEqual(g, w) {
					t.Errorf("%#x: %+v, %v; without dwz %+v, %v", a, g, gerr, w, werr)
				}
				for _, f := range g {
					scaled = scaled || f.Function == "units::scaled"
				}
			}
			if x, _ := o.dwarfIndex(); x == nil || x.alt == nil {
				t.Error("no supplementary file attached")
			}
			if !scaled {
				t.Error("no frame of units::scaled: the program no longer tests names in the supplementary file")
			}
		})
	}
}

// A supplementary file whose identity is not the one the link names is
// not used: names from it could be another build's.
func TestAltLinkWrongFile(t *testing.T) {
	src := filepath.Join("..", "e2e", "testdata", "progs")
	d := t.TempDir()
	exe := filepath.Join(d, "units")
	args := []string{"-O2", "-g", "-o", exe}
	for _, f := range []string{"units_main.cc", "units_walk.cc", "units_leaf.cc"} {
		args = append(args, filepath.Join(src, f))
	}
	testenv.Build(t, "g++", args...)
	image, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "twin"), image, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, d, testenv.NeedTool(t, "dwz"), "-m", "common.dwz", "-r", "units", "twin")
	// Another file with DWARF where the link points.
	if err := os.WriteFile(filepath.Join(d, "common.dwz"), image, 0o644); err != nil {
		t.Fatal(err)
	}
	o := mustOpen(t, exe)
	if x, _ := o.dwarfIndex(); x == nil || x.alt != nil {
		t.Errorf("index %v; a file of another identity was attached as the supplementary file", x)
	}
}

// FuzzAltLink: .gnu_debugaltlink and .debug_sup contents of any bytes
// parse or are refused, without panicking, and a parsed .debug_sup
// gives no more checksum than it holds.
func FuzzAltLink(f *testing.F) {
	f.Add([]byte("../common.dwz\x00\xf4\xbd\x46\x00"))
	f.Add([]byte("\x05\x00\x00sup.debug\x00\x04\x4a\xd7\xaa\x80"))
	f.Add([]byte("\x05\x00\x01\x00\x14\x4a"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseAltLink(b)
		if _, _, sum, ok := parseDebugSup(b, binary.LittleEndian); ok && len(sum) > 2*len(b) {
			t.Fatalf("checksum %s from %d bytes", sum, len(b))
		}
	})
}

// A supplementary file found nowhere here is fetched by its build ID
// with the Cache's fetcher (debuginfod), once the local places miss.
func TestAltLinkFetched(t *testing.T) {
	src := filepath.Join("..", "e2e", "testdata", "progs")
	d := t.TempDir()
	exe := filepath.Join(d, "units")
	args := []string{"-O2", "-g", "-o", exe}
	for _, f := range []string{"units_main.cc", "units_walk.cc", "units_leaf.cc"} {
		args = append(args, filepath.Join(src, f))
	}
	testenv.Build(t, "g++", args...)
	image, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "twin"), image, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, d, testenv.NeedTool(t, "dwz"), "-m", "common.dwz", "-M", "/nonexistent/common.dwz", "units", "twin")
	fetched := filepath.Join(t.TempDir(), "fetched")
	if err := os.Rename(filepath.Join(d, "common.dwz"), fetched); err != nil {
		t.Fatal(err)
	}
	wantID := mustOpen(t, fetched).BuildID()
	var asked []string
	c := NewCache()
	defer c.Close()
	c.SetDebugFetcher(func(id string) (string, error) {
		asked = append(asked, id)
		return fetched, nil
	}, false)
	o, err := c.Open(exe, []string{filepath.Join(d, "debug")})
	if err != nil {
		t.Fatal(err)
	}
	if x, _ := o.dwarfIndex(); x == nil || x.alt == nil {
		t.Fatal("the fetched supplementary file was not attached")
	}
	if len(asked) != 1 || asked[0] != wantID {
		t.Errorf("fetched %v, want [%s]", asked, wantID)
	}
}
