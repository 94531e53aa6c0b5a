package analyze

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/goruntime"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// goParkedProg parks a few goroutines on a channel and panics: with
// GOTRACEBACK=crash the runtime aborts with a core.
const goParkedProg = `package main

import "time"

func main() {
	c := make(chan int)
	for range 4 {
		go func() { <-c }()
	}
	time.Sleep(100 * time.Millisecond)
	panic("parked")
}
`

// TestAllgsScanMatchesCode: on the cores of stripped amd64 and arm64
// programs, the data scan alone (goAllgsByScan, the decoder not asked)
// finds runtime.allgs where runtime.allgadd's code says it is.
func TestAllgsScanMatchesCode(t *testing.T) {
	gotool := testenv.NeedTool(t, "go")
	for _, goarch := range []string{"amd64", "arm64"} {
		t.Run(goarch, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "main.go")
			if err := os.WriteFile(src, []byte(goParkedProg), 0o644); err != nil {
				t.Fatal(err)
			}
			exe := filepath.Join(dir, "prog")
			build := exec.Command(gotool, "build", "-ldflags=-s -w", "-o", exe, src)
			build.Env = append(os.Environ(), "GOARCH="+goarch)
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build: %v\n%s", err, out)
			}
			var core string
			if goarch == "arm64" {
				core, _ = testenv.CrashUnderQemuEnv(t, testenv.AArch64, []string{"GOTRACEBACK=crash"}, exe)
			} else {
				core, _ = testenv.CrashIn(t, dir, exe, []string{"GOTRACEBACK=crash"})
			}
			s, err := Open(core, Options{Executable: exe})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			tg := s.target
			m := tg.mainModule()
			obj := m.obj()
			syms := map[string]uint64{}
			if err := goStrippedSymbols(tg, m, obj, syms); err != nil {
				t.Fatal(err)
			}
			fromCode, ok := syms[goruntime.SymAllgs]
			if !ok {
				t.Fatal("runtime.allgadd's code gave no runtime.allgs")
			}
			version, arch, _ := obj.GoBuildInfo()
			bin := goruntime.Binary{Symbols: maps.Clone(syms), Version: version, GOARCH: arch, PtrSize: tg.PtrSize(), Order: tg.ByteOrder()}
			delete(bin.Symbols, goruntime.SymAllgs)
			if bin.Layouts, err = goLayouts(obj, bin); err != nil {
				t.Fatal(err)
			}
			if err := goAllgsByScan(tg, m, obj, bin); err != nil {
				t.Fatal(err)
			}
			if got := bin.Symbols[goruntime.SymAllgs]; got != fromCode {
				t.Errorf("the scan finds runtime.allgs at %#x, the code at %#x", got, fromCode)
			}
		})
	}
}
