package elfx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

func BenchmarkOpen(b *testing.B) {
	paths, _ := filepath.Glob("/lib/*-linux-gnu/libc.so.6")
	if len(paths) == 0 {
		testenv.Unavailable(b, "no libc.so.6")
	}
	for b.Loop() {
		o, err := Open(paths[0])
		if err != nil {
			b.Fatal(err)
		}
		o.Close()
	}
}

// benchAddrs spreads addresses over the object's functions.
func benchAddrs(b *testing.B, o *Object) []uint64 {
	var addrs []uint64
	t := o.symbols()
	for i := range t.byAddr {
		s := t.at(i)
		if s.Size > 4 {
			addrs = append(addrs, s.Addr+s.Size/3)
		}
	}
	if len(addrs) == 0 {
		b.Fatal("no sized symbols")
	}
	return addrs
}

func BenchmarkSymbol(b *testing.B) {
	o := libcWithDebug(b)
	addrs := benchAddrs(b, o)
	i := 0
	for b.Loop() {
		o.Symbol(addrs[i%len(addrs)])
		i++
	}
}

func BenchmarkSourceFrames(b *testing.B) {
	b.Run("libc", func(b *testing.B) {
		o := libcWithDebug(b)
		benchSourceFrames(b, o)
	})
	b.Run("cxx", func(b *testing.B) {
		bin := compile(b, b.TempDir(), "g++", "prog", "cc", cxxProgram, "-O2", "-g")
		benchSourceFrames(b, mustOpen(b, bin))
	})
}

// benchSourceFrames measures warm lookups: the units a backtrace touches
// are indexed once, then every lookup is a few binary searches.
func benchSourceFrames(b *testing.B, o *Object) {
	addrs := benchAddrs(b, o)
	if len(addrs) > 2000 {
		addrs = addrs[:2000]
	}
	for _, a := range addrs {
		if _, err := o.SourceFrames(a); err != nil {
			b.Fatal(err)
		}
	}
	i := 0
	for b.Loop() {
		o.SourceFrames(addrs[i%len(addrs)])
		i++
	}
}

// BenchmarkBuildSymbols builds the symbol table of a large binary
// ($COREUNWIND_BENCH_SYMBOLS, default /usr/bin/node, else libc) from
// scratch: read, sort, deduplicate.
func BenchmarkBuildSymbols(b *testing.B) {
	path := os.Getenv("COREUNWIND_BENCH_SYMBOLS")
	if path == "" {
		path = "/usr/bin/node"
		if _, err := os.Stat(path); err != nil {
			paths, _ := filepath.Glob("/lib/*-linux-gnu/libc.so.6")
			if len(paths) == 0 {
				testenv.Unavailable(b, "no node or libc.so.6")
			}
			path = paths[0]
		}
	}
	o := mustOpen(b, path)
	for b.Loop() {
		o.buildSymbols()
	}
}

// BenchmarkInflateLibcDebugInfo inflates libc's .debug_info (libc6-dbg)
// whole, as the eager index reads it, and as a cold report streams it to
// a unit 4 MB in: what lies before goes through a scratch buffer and
// only the unit's pages are kept.
func BenchmarkInflateLibcDebugInfo(b *testing.B) {
	dbg := mustOpen(b, libcWithDebug(b).DebugFile())
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			if _, err := dbg.sectionsData([]string{".debug_info"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stream", func(b *testing.B) {
		for b.Loop() {
			st, err := dbg.newSectionStream(".debug_info")
			if err != nil {
				b.Fatal(err)
			}
			lo := min(4<<20, len(st.buf)/2)
			if _, err := st.ensure(uint64(lo), uint64(lo+4096)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
