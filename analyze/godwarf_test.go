package analyze

import (
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// goLabelsPanicProg panics in code inlined into main, beside a
// goroutine that waits with a pprof label.
const goLabelsPanicProg = `package main

import (
	"context"
	"os"
	"runtime/pprof"
)

func leaf(m map[string]int, n int) { m["x"] = n }

func mid(m map[string]int, n int) { leaf(m, n+len(os.Args)) }

//go:noinline
func store(m map[string]int, n int) { mid(m, n) }

func main() {
	ready := make(chan bool)
	go pprof.Do(context.Background(), pprof.Labels("worker", "a"), func(context.Context) {
		ready <- true
		select {}
	})
	<-ready
	var m map[string]int
	store(m, 1)
}
`

// TestGoReportReadsNoDWARF: the report of a core of a Go program built
// by a release the generated layout table has reads none of its DWARF
// (zlib-compressed, most of such a report's time and memory before):
// the frames come from .gopclntab, the goroutines' layouts, label
// types and clocks from the table. The report still has what the DWARF
// gave: inlined frames with files and lines, the goroutine's labels.
// Nor does it build the executable's sorted symbol table.
func TestGoReportReadsNoDWARF(t *testing.T) {
	dir, exe := buildGo(t, "", goLabelsPanicProg)
	src := filepath.Join(dir, "main.go")
	core, _ := testenv.CrashIn(t, dir, exe, []string{"GOTRACEBACK=crash"})
	objs := elfx.NewCache()
	defer objs.Close()
	r, err := Analyze(core, Options{Executable: exe, Objects: objs})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := objs.Open(exe, nil)
	if err != nil {
		t.Fatal(err)
	}
	if obj.ELF().Section(".debug_info") == nil {
		t.Fatal("the program has no DWARF to leave unread")
	}
	if obj.DWARFRead() {
		t.Error("the report read the executable's DWARF")
	}
	// The goroutines' frames and creators are looked up in the threads'
	// batch: a batch per goroutine, and each creator on its own, built
	// the whole symbol table.
	if obj.SymbolTableBuilt() {
		t.Error("the report built the executable's symbol table")
	}
	created := 0
	for _, g := range r.Goroutines {
		if g.CreatedBy != nil && g.CreatedBy.Function != "" {
			created++
		}
	}
	if created == 0 {
		t.Error("no goroutine's creator named")
	}
	inlined, labelled := false, false
	for _, g := range r.Goroutines {
		for _, f := range g.Frames {
			if f.Inlined && f.Function != nil && *f.Function == "main.mid" && f.File != nil && *f.File == src && f.Line != nil && *f.Line == 11 {
				inlined = true
			}
		}
		if g.Labels["worker"] == "a" {
			labelled = true
		}
	}
	if !inlined {
		t.Error("no inlined frame main.mid at main.go:11 in the goroutines")
	}
	if !labelled {
		t.Error("no goroutine with the label worker=a")
	}
}
