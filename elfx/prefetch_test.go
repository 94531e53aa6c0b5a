package elfx

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"golang.org/x/sys/unix"
)

// compressedDebugFiles are debug files with zlib-compressed DWARF that
// Debian installs: glibc's (libc6-dbg, units self-contained) and
// python3.11's (python3.11-dbg, built with LTO: units refer into each
// other and .debug_aranges leaves most of them out).
func compressedDebugFiles(t *testing.T) []*Object {
	t.Helper()
	libc := libcWithDebug(t)
	py, err := Open("/usr/bin/python3.11")
	if err != nil {
		testenv.Unavailable(t, "Debian's python3.11: "+err.Error())
	}
	t.Cleanup(func() { py.Close() })
	if _, err := py.AttachDebugFile(nil); err != nil {
		testenv.Unavailable(t, "python3.11's debug file (python3.11-dbg): "+err.Error())
	}
	return []*Object{mustOpen(t, libc.DebugFile()), mustOpen(t, py.DebugFile())}
}

// checkKeptBytes fails unless every byte st holds (inflated, not given
// back) is debug/elf's.
func checkKeptBytes(t *testing.T, o *Object, st *sectionStream) {
	t.Helper()
	want, err := o.ELF().Section(st.name).Data()
	if err != nil {
		t.Fatal(err)
	}
	for lo := 0; lo < st.done; {
		hi := st.done
		for _, d := range st.dropped {
			switch {
			case d[0] <= lo && lo < d[1]:
				lo = d[1]
			case lo < d[0]:
				hi = min(hi, d[0])
			}
		}
		if lo >= hi {
			continue
		}
		if !bytes.Equal(st.buf[lo:hi], want[lo:hi]) {
			t.Fatalf("%s %s: kept bytes [%#x,%#x) differ from debug/elf's", o.name, st.name, lo, hi)
		}
		lo = hi
	}
}

// Several goroutines reading one compressed stream at once (one asking
// for ranges in order as a prefetch does, others for the same ranges,
// one for ranges in the gaps the others skipped, which inflates the
// stream again from its start) each get debug/elf's bytes. Run under
// -race, this checks that the stream inflates on one goroutine at a time
// with its lock released and readers see only what it published.
func TestSectionStreamConcurrentReaders(t *testing.T) {
	for _, dbg := range compressedDebugFiles(t) {
		for _, name := range []string{".debug_info", ".debug_line", ".debug_abbrev"} {
			st, want := compressedSectionStream(t, dbg, name)
			rng := rand.New(rand.NewPCG(5, 6))
			var asked, gaps [][2]int
			for lo := 0; lo < len(want); {
				hi := min(len(want), lo+1+rng.IntN(8<<10))
				asked = append(asked, [2]int{lo, hi})
				next := hi + []int{rng.IntN(32 << 10), rng.IntN(300 << 10), rng.IntN(len(want) / 6)}[rng.IntN(3)]
				if next-hi > 1<<10 {
					gaps = append(gaps, [2]int{hi + 100, min(len(want), hi+600)})
				}
				lo = next
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			var failures []string
			read := func(ranges [][2]int) {
				for _, r := range ranges {
					buf, err := st.ensure(uint64(r[0]), uint64(r[1]))
					if err != nil || !bytes.Equal(buf[r[0]:r[1]], want[r[0]:r[1]]) {
						mu.Lock()
						failures = append(failures, "[%#x,%#x)")
						mu.Unlock()
						t.Errorf("%s %s [%#x,%#x): err %v, bytes differ from debug/elf's: %v", dbg.name, name, r[0], r[1], err, !bytes.Equal(buf[r[0]:r[1]], want[r[0]:r[1]]))
						return
					}
				}
			}
			for range 4 {
				wg.Go(func() { read(asked) })
			}
			wg.Go(func() {
				// Into what the others skip, once they are well on.
				time.Sleep(time.Millisecond)
				read(gaps[len(gaps)/3 : len(gaps)/2])
			})
			wg.Wait()
			if len(failures) > 0 {
				continue
			}
			if st.busy {
				t.Errorf("%s %s: still marked busy with nobody inflating", dbg.name, name)
			}
			checkKeptBytes(t, dbg, st)
		}
	}
}

// TestPrefetchMatchesSerial preloads the same addresses in glibc's and
// python3.11's compressed debug files with and without the prefetch:
// the frames found are the same, every byte the streams kept is
// debug/elf's, and the prefetch gives back as many pages as the lookups
// alone (it asks for the same ranges in the same order).
func TestPrefetchMatchesSerial(t *testing.T) {
	for _, dbg := range compressedDebugFiles(t) {
		all := sampleAddrs(t, dbg.ELF(), 300)
		// The entry point (_start) is in no unit .debug_aranges lists
		// in python3.11's: its lookup walks the unlisted units.
		addrs := []uint64{dbg.ELF().Entry}
		for i := 0; i < len(all); i += len(all) / 40 {
			addrs = append(addrs, all[i])
		}
		serial := dbg.mustLazyIndex(t, nil)
		serial.lazy.prefetch = false
		serial.preload(addrs)
		if serial.lazy.prefetched.Load() != 0 {
			t.Fatalf("%s: %d units read ahead without the prefetch", dbg.name, serial.lazy.prefetched.Load())
		}
		// The prefetch a preload starts, and the one the index starts
		// when it is built for the batch's addresses (Object.WarmFor).
		late := dbg.mustLazyIndex(t, nil)
		late.preload(addrs)
		early := dbg.mustLazyIndex(t, addrs)
		if early.lazy.early.Load() == nil {
			t.Fatalf("%s: the index built for a batch started no prefetch", dbg.name)
		}
		early.preload(addrs)
		if early.lazy.early.Load() != nil {
			t.Errorf("%s: the preload left the index's prefetch behind", dbg.name)
		}
		for _, par := range []*dwarfIndex{late, early} {
			if par.lazy.prefetched.Load() == 0 {
				t.Fatalf("%s: the prefetch read nothing ahead", dbg.name)
			}
			for _, a := range addrs {
				want, werr := serial.sourceFrames(a, dbg)
				got, gerr := par.sourceFrames(a, dbg)
				if (werr != nil) != (gerr != nil) || !reflect.DeepEqual(got, want) {
					t.Errorf("%s %#x: prefetched %+v, %v; serial %+v, %v", dbg.name, a, got, gerr, want, werr)
				}
			}
			for i, st := range []*sectionStream{par.lazy.info, par.lazy.line, par.lazy.abbrev} {
				s := []*sectionStream{serial.lazy.info, serial.lazy.line, serial.lazy.abbrev}[i]
				checkKeptBytes(t, dbg, st)
				t.Logf("%s %s: %d of %d bytes inflated, %d pages given back (serial: %d, %d)", dbg.name, st.name, st.done, len(st.buf), droppedPages(st), s.done, droppedPages(s))
				if got, want := droppedPages(st), droppedPages(s); got < want*9/10 {
					t.Errorf("%s %s: the prefetch gave back %d pages, the lookups alone %d", dbg.name, st.name, got, want)
				}
			}
		}
	}
}

// mustLazyIndex builds o's lazy index for a batch at addrs (nil: none).
func (o *Object) mustLazyIndex(t *testing.T, addrs []uint64) *dwarfIndex {
	t.Helper()
	x, err := o.newLazyDWARFIndexFor(addrs)
	if err != nil || x == nil {
		t.Fatalf("lazy index of %s: %v, %v", o.name, x, err)
	}
	return x
}

// A batch (triage) runs reports in parallel: its objects' indexes
// prefetch nothing.
func TestBatchDoesNotPrefetch(t *testing.T) {
	_, dbg := batchLibc(t)
	addrs := sampleAddrs(t, dbg.ELF(), 300)
	x := dbg.mustLazyIndex(t, addrs)
	x.preload(addrs[:len(addrs)/2])
	if n := x.lazy.prefetched.Load(); n != 0 || x.lazy.early.Load() != nil {
		t.Errorf("a batch's index read %d units or streams ahead", n)
	}
}

// A compressed .debug_info cut short (its section header's size
// shrunk: the stream ends early) fails the lookups past the cut with
// the stream's error, with or without the prefetch, and the prefetch
// neither hangs nor leaves a goroutine behind.
func TestPrefetchTruncatedSection(t *testing.T) {
	libc := libcWithDebug(t)
	image, err := os.ReadFile(libc.DebugFile())
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(image))
	if err != nil {
		t.Fatal(err)
	}
	s := ef.Section(".debug_info")
	if s == nil || s.Flags&elf.SHF_COMPRESSED == 0 || ef.Class != elf.ELFCLASS64 {
		t.Fatalf("%s: no compressed ELF64 .debug_info", libc.DebugFile())
	}
	idx := -1
	for i, sec := range ef.Sections {
		if sec == s {
			idx = i
		}
	}
	// sh_size of section idx (ELF64: e_shoff at 0x28, 64-byte headers,
	// sh_size at 0x20 in each).
	shoff := binary.LittleEndian.Uint64(image[0x28:])
	at := shoff + uint64(idx)*64 + 0x20
	binary.LittleEndian.PutUint64(image[at:], s.FileSize/2)
	cut := filepath.Join(t.TempDir(), "libc.debug")
	if err := os.WriteFile(cut, image, 0o600); err != nil {
		t.Fatal(err)
	}
	dbg := mustOpen(t, cut)
	addrs := sampleAddrs(t, dbg.ELF(), 300)
	ask := []uint64{addrs[0], addrs[len(addrs)/2], addrs[len(addrs)-1]}
	errsOf := func(prefetch bool) []string {
		x, err := dbg.newLazyDWARFIndex()
		if err != nil || x == nil {
			t.Fatalf("lazy index of %s: %v, %v", cut, x, err)
		}
		x.lazy.prefetch = prefetch
		done := make(chan struct{})
		go func() {
			defer close(done)
			x.preload(ask)
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			t.Fatalf("preload with prefetch %v did not return", prefetch)
		}
		var errs []string
		for _, a := range ask {
			_, err := x.sourceFrames(a, dbg)
			errs = append(errs, fmt0err(err))
		}
		if prefetch && x.lazy.prefetched.Load() == 0 {
			t.Error("the prefetch read no unit ahead")
		}
		return errs
	}
	before := runtime.NumGoroutine()
	serial, par := errsOf(false), errsOf(true)
	if !reflect.DeepEqual(serial, par) {
		t.Errorf("errors with the prefetch %q, without %q", par, serial)
	}
	if !strings.Contains(par[2], "section .debug_info: inflated") || !strings.Contains(par[2], "unexpected EOF") {
		t.Errorf("a lookup past the cut: %q, want the stream's error", par[2])
	}
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before the lookups, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
	if n := len(prefetchSlots); n != 0 {
		t.Errorf("%d prefetch slots still taken", n)
	}
}

// fmt0err is err's message, "" for none.
func fmt0err(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Closing an object gives back the memory its compressed sections were
// inflated into at once, not when the garbage collector next finds the
// streams unreachable (which the Go heap's growth paces, and these
// mappings are no part of): here the object is still referenced.
func TestCloseGivesBackInflatedSections(t *testing.T) {
	libc := libcWithDebug(t)
	o, err := Open(libc.Path())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.AttachDebugFile(nil); err != nil {
		t.Fatal(err)
	}
	addrs := sampleAddrs(t, libc.debugObject().ELF(), 300)
	o.WarmFor(addrs[:len(addrs)/3])
	x, err := o.dwarfIndex()
	if err != nil || x == nil || x.lazy == nil {
		t.Fatalf("no lazy DWARF index for %s: %v", o.name, err)
	}
	var inflated [][]byte
	for _, st := range []*sectionStream{x.lazy.info, x.lazy.line, x.lazy.abbrev} {
		if !st.owned() {
			t.Fatalf("%s of %s is not compressed", st.name, o.name)
		}
		inflated = append(inflated, st.buf)
	}
	// msync fails with ENOMEM on a range not mapped.
	mapped := func(b []byte) bool { return unix.Msync(b, unix.MS_ASYNC) == nil }
	for _, b := range inflated {
		if !mapped(b) {
			t.Fatal("an inflated section is not mapped before Close")
		}
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	for i, b := range inflated {
		if mapped(b) {
			t.Errorf("section %d's %d inflated bytes are still mapped after Close", i, len(b))
		}
	}
	runtime.KeepAlive(x)
}

// FuzzSectionStreamConcurrent reads a crafted compressed section (an
// ELF64 compression header claiming size bytes, then stream) by the
// same ranges alone and beside a goroutine inflating it from its start,
// as a prefetch does: the two give the same bytes and fail on the same
// ranges, without a panic or a hang.
func FuzzSectionStreamConcurrent(f *testing.F) {
	var text bytes.Buffer
	for i := range 3000 {
		fmt.Fprintf(&text, "unit %d: %x\n", i, i*i*2654435761)
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(text.Bytes())
	w.Close()
	stream := z.Bytes()
	f.Add(stream, uint32(text.Len()), uint16(0x1234))
	f.Add(stream[:len(stream)/2], uint32(text.Len()), uint16(0x4321))
	bad := bytes.Clone(stream)
	bad[len(bad)/3] ^= 0x55
	f.Add(bad, uint32(text.Len()), uint16(7))
	f.Add(stream, uint32(text.Len()+100), uint16(999))
	f.Add(stream, uint32(1<<30), uint16(999))
	f.Fuzz(func(t *testing.T, stream []byte, size uint32, split uint16) {
		raw := make([]byte, 24, 24+len(stream))
		binary.LittleEndian.PutUint32(raw, uint32(elf.COMPRESS_ZLIB))
		binary.LittleEndian.PutUint64(raw[8:], uint64(size))
		raw = append(raw, stream...)
		// Three ranges with gaps, from split.
		n := int(size)
		a, b := int(split)*n/0x10000, (int(split)*7%0x10000)*n/0x10000
		ranges := [][2]int{{0, a / 2}, {a, a + (n-a)/3}, {max(b, a+(n-a)/2), n}}
		read := func(prefetch bool) []string {
			st, err := newCompressedStream(".debug_info", raw, elf.ELFCLASS64, binary.LittleEndian, nil)
			if err != nil {
				return []string{"open: " + err.Error()}
			}
			var wg sync.WaitGroup
			if prefetch {
				wg.Go(func() {
					for end := 4 << 10; ; end += 4 << 10 {
						if _, err := st.ensure(0, uint64(min(end, n))); err != nil || end >= n {
							return
						}
					}
				})
			}
			var out []string
			for _, r := range ranges {
				if r[0] > r[1] {
					continue
				}
				buf, err := st.ensure(uint64(r[0]), uint64(r[1]))
				if err != nil {
					out = append(out, "error")
				} else {
					out = append(out, string(buf[r[0]:r[1]]))
				}
			}
			wg.Wait()
			if st.busy {
				t.Fatal("stream still busy")
			}
			return out
		}
		if serial, par := read(false), read(true); !reflect.DeepEqual(serial, par) {
			t.Fatalf("ranges %v: alone %.80q, beside a prefetch %.80q", ranges, serial, par)
		}
	})
}
