package elfx

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/testenv"

	"github.com/coreunwind/coreunwind/elfx/cfi"
)

var readelfFDE = regexp.MustCompile(`FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.([0-9a-f]+)`)

// readelfFDEs lists the [begin, end) of every FDE readelf finds in one
// frame section (".eh_frame" or ".debug_frame").
func readelfFDEs(t *testing.T, file, section string) [][2]uint64 {
	out := run(t, "", testenv.NeedTool(t, "readelf"), "--debug-dump=frames", file)
	var res [][2]uint64
	in := false
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Contents of the ") {
			in = strings.Contains(l, "'"+section+"'") || strings.Contains(l, " "+section+" ")
			continue
		}
		if m := readelfFDE.FindStringSubmatch(l); m != nil && in {
			b, _ := strconv.ParseUint(m[1], 16, 64)
			e, _ := strconv.ParseUint(m[2], 16, 64)
			res = append(res, [2]uint64{b, e})
		}
	}
	return res
}

func TestFindFDEMatchesReadelf(t *testing.T) {
	cases := []struct {
		name, section string
		flags         []string
	}{
		{"eh_frame", ".eh_frame", []string{"-O2", "-g"}},
		{"debug_frame", ".debug_frame", []string{"-O2", "-g", "-fno-asynchronous-unwind-tables", "-fno-exceptions"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := compile(t, dir, "gcc", "prog", "c", cProgram, tc.flags...)
			o := mustOpen(t, bin)
			fdes := readelfFDEs(t, bin, tc.section)
			if len(fdes) < 3 {
				t.Fatalf("readelf shows %d FDEs in %s", len(fdes), tc.section)
			}
			eh, dbg, err := o.UnwindTables()
			if err != nil {
				t.Fatal(err)
			}
			if tc.section == ".debug_frame" && dbg == nil {
				t.Fatal("no .debug_frame table")
			}
			if tc.section == ".eh_frame" && eh == nil {
				t.Fatal("no .eh_frame table")
			}
			for _, r := range fdes {
				for _, pc := range []uint64{r[0], r[1] - 1} {
					f, err := o.FindFDE(pc)
					if err != nil {
						t.Errorf("FindFDE(%#x): %v", pc, err)
						continue
					}
					// An eh_frame FDE may shadow a debug_frame one for the
					// same code; it must still cover pc.
					if pc < f.Begin || pc >= f.End {
						t.Errorf("FindFDE(%#x) = [%#x,%#x)", pc, f.Begin, f.End)
					}
				}
			}
			if _, err := o.FindFDE(0); !errors.Is(err, cfi.ErrNoFDE) {
				t.Errorf("FindFDE(0) = %v; want ErrNoFDE", err)
			}
		})
	}
}

// TestNewObjectVDSO reads this process's vDSO out of /proc/self/mem, the
// way a core's copy of it is read, and checks it like a file.
func TestNewObjectVDSO(t *testing.T) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		testenv.Unavailable(t, err.Error())
	}
	var lo, hi uint64
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		if strings.HasSuffix(sc.Text(), "[vdso]") {
			r := strings.SplitN(strings.Fields(sc.Text())[0], "-", 2)
			lo, _ = strconv.ParseUint(r[0], 16, 64)
			hi, _ = strconv.ParseUint(r[1], 16, 64)
		}
	}
	if lo == 0 {
		testenv.Unavailable(t, "no [vdso] mapping")
	}
	mem, err := os.Open("/proc/self/mem")
	if err != nil {
		testenv.Unavailable(t, err.Error())
	}
	defer mem.Close()
	img := make([]byte, hi-lo)
	if _, err := mem.ReadAt(img, int64(lo)); err != nil {
		testenv.Unavailable(t, err.Error())
	}
	o, err := NewObject(bytes.NewReader(img), int64(len(img)), "[vdso]")
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if o.BuildID() == "" || o.Type().String() != "ET_DYN" || o.Path() != "[vdso]" {
		t.Errorf("BuildID %q Type %v Path %q", o.BuildID(), o.Type(), o.Path())
	}
	s, ok := o.LookupSymbol("__vdso_clock_gettime")
	if !ok {
		t.Fatal("__vdso_clock_gettime not found")
	}
	if got, ok := o.Symbol(s.Addr + 1); !ok || got.Addr != s.Addr {
		t.Errorf("Symbol(__vdso_clock_gettime+1) = %+v, %v", got, ok)
	}
	if f, err := o.FindFDE(s.Addr + 1); err != nil || f.Begin > s.Addr+1 || f.End <= s.Addr+1 {
		t.Errorf("FindFDE(__vdso_clock_gettime+1) = %+v, %v", f, err)
	}
	// The same symbol through gdb's view of the image is not available
	// here; readelf on a copy of the image is.
	p := t.TempDir() + "/vdso.so"
	os.WriteFile(p, img, 0o644)
	if out := run(t, "", testenv.NeedTool(t, "readelf"), "-n", p); !strings.Contains(out, o.BuildID()) {
		t.Errorf("readelf -n does not show build ID %s", o.BuildID())
	}
	if segs := o.LoadSegments(); len(segs) == 0 {
		t.Error("no PT_LOAD segments")
	}
}

func TestCacheSharesObjects(t *testing.T) {
	dir := t.TempDir()
	bin := compile(t, dir, "gcc", "prog", "c", cProgram, "-O2", "-g")
	data, _ := os.ReadFile(bin)
	copyPath := dir + "/copy"
	os.WriteFile(copyPath, data, 0o755)
	c := NewCache()
	defer c.Close()
	var wg sync.WaitGroup
	objs := make([]*Object, 16)
	for i := range objs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			p := bin
			if i%2 == 1 {
				p = copyPath // same build ID, other path
			}
			o, err := c.Open(p, []string{dir + "/none"})
			if err != nil {
				t.Error(err)
				return
			}
			objs[i] = o
			if _, err := o.SourceFrames(0x1100); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	for _, o := range objs[1:] {
		if o != objs[0] {
			t.Fatal("cache returned different objects for one build ID")
		}
	}
	if _, err := c.Open(dir+"/missing", nil); err == nil {
		t.Error("Open of a missing file succeeded")
	}
}

func TestOpenRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"empty":     nil,
		"text":      []byte("not an ELF file at all\n"),
		"truncated": []byte("\x7fELF\x02\x01\x01\x00"),
	} {
		p := dir + "/" + name
		os.WriteFile(p, data, 0o644)
		if o, err := Open(p); err == nil {
			o.Close()
			t.Errorf("%s: Open succeeded", name)
		}
	}
	if _, err := Open(dir + "/nonexistent"); err == nil {
		t.Error("Open of a missing file succeeded")
	}
	if _, err := Open(dir); err == nil {
		t.Error("Open of a directory succeeded")
	}
}

func TestDemangle(t *testing.T) {
	// Expected values from c++filt (binutils), except that legacy Rust
	// hashes are dropped as gdb does.
	cxxfilt := testenv.NeedTool(t, "c++filt")
	names := []string{
		"_ZN3geo4PolyC2ESt6vectorINS_3VecIdEESaIS3_EE",
		"_ZNKSt6vectorIiSaIiEE4sizeEv",
		"_ZN9__gnu_cxx13new_allocatorIcE8allocateEmPKv",
		"_Z3fooi.isra.0",
		"_ZNSt8ios_base4InitC1Ev",
	}
	out := strings.Split(strings.TrimSpace(runWithStdin(t, "", strings.Join(names, "\n")+"\n", cxxfilt)), "\n")
	for i, n := range names {
		if got := Demangle(n); got != out[i] {
			t.Errorf("Demangle(%q) = %q, c++filt %q", n, got, out[i])
		}
	}
	for in, want := range map[string]string{
		"malloc":                   "malloc",
		"memcpy@@GLIBC_2.14":       "memcpy",
		"_ZNSo3putEc@@GLIBCXX_3.4": "std::ostream::put(char)",
		"_Znot_mangled":            "_Znot_mangled",
		"main.main":                "main.main",
		"_RNvCs1234_7mycrate3foo":  "mycrate::foo",
		"":                         "",
	} {
		if got := Demangle(in); got != want {
			t.Errorf("Demangle(%q) = %q; want %q", in, got, want)
		}
	}
}

// A process may map a binary and its separate debug file (Rust's
// backtrace code maps libc's). They share a build ID, but only the binary
// has code and .eh_frame: the cache must not hand one out for the other.
func TestCacheKeepsDebugFileApart(t *testing.T) {
	dir := t.TempDir()
	bin := compile(t, dir, "gcc", "prog", "c", cProgram, "-O2", "-g")
	dbg := dir + "/prog.debug"
	testenvRun(t, "objcopy", "--only-keep-debug", bin, dbg)
	c := NewCache()
	defer c.Close()
	od, err := c.Open(dbg, []string{dir + "/none"})
	if err != nil {
		t.Fatal(err)
	}
	ob, err := c.Open(bin, []string{dir + "/none"})
	if err != nil {
		t.Fatal(err)
	}
	if od == ob || od.BuildID() != ob.BuildID() {
		t.Fatalf("binary and debug file: same object %v, build IDs %q %q", od == ob, ob.BuildID(), od.BuildID())
	}
	if eh, _, _ := ob.UnwindTables(); eh == nil {
		t.Error("the binary's object has no .eh_frame: the cache handed out the debug file")
	}
}

func testenvRun(t *testing.T, name string, args ...string) {
	t.Helper()
	if b, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, b)
	}
}

// A compressed section whose header claims far more than its stream
// holds is an error, and costs what the stream yields, not the claim.
func TestInflateClaimIsNotTrusted(t *testing.T) {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(bytes.Repeat([]byte("dwarf"), 100))
	w.Close()
	raw := make([]byte, 24, 24+z.Len())
	binary.LittleEndian.PutUint32(raw, uint32(elf.COMPRESS_ZLIB))
	binary.LittleEndian.PutUint64(raw[8:], 1<<30) // claims 1 GiB
	raw = append(raw, z.Bytes()...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := inflateSection(raw, elf.ELFCLASS64, binary.LittleEndian, ".debug_info")
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a stream of 500 bytes claiming 1 GiB was accepted")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("inflating allocated %d bytes for a 500-byte stream", grew)
	}
}

// A file replaced under its path by another of the same size and time
// (a copy made with cp -p, a rebuilt binary restored from an archive) is
// a new file: the cache must not hand out what it found for the old one.
func TestCacheNoticesReplacedFile(t *testing.T) {
	dir := t.TempDir()
	bin := compile(t, dir, "gcc", "prog", "c", cProgram, "-O2", "-g")
	good, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	p, next := dir+"/lib", dir+"/lib.next"
	// First a file of the same size that is no ELF file: Open fails.
	if err := os.WriteFile(p, bytes.Repeat([]byte{'x'}, len(good)), 0o755); err != nil {
		t.Fatal(err)
	}
	when := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	os.Chtimes(p, when, when)
	c := NewCache()
	defer c.Close()
	if _, err := c.Open(p, nil); err == nil {
		t.Fatal("Open of a non-ELF file succeeded")
	}
	if err := os.WriteFile(next, good, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(next, when, when)
	if err := os.Rename(next, p); err != nil {
		t.Fatal(err)
	}
	o, err := c.Open(p, nil)
	if err != nil {
		t.Fatalf("Open after the file was replaced by an ELF file of the same size and time: %v", err)
	}
	if o.BuildID() == "" {
		t.Error("the replacement's build ID is not read")
	}
}

// Cores of one kernel carry the same vDSO: a batch parses its image once.
// Another image (another kernel) is another object, and past maxImages
// images each is parsed for itself.
func TestCacheImageObject(t *testing.T) {
	dir := t.TempDir()
	img, err := os.ReadFile(compile(t, dir, "gcc", "prog", "c", cProgram, "-O2"))
	if err != nil {
		t.Fatal(err)
	}
	c := NewCache()
	defer c.Close()
	a, err := c.ImageObject(bytes.Clone(img), "[vdso]")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := c.ImageObject(bytes.Clone(img), "[vdso]"); err != nil || b != a {
		t.Errorf("the same image gave another object (%v)", err)
	}
	other := bytes.Clone(img)
	other[len(other)-1] ^= 0xff // in the section header table's last entry
	if b, err := c.ImageObject(other, "[vdso]"); err == nil && b == a {
		t.Error("another image gave the first image's object")
	}
	if _, err := c.ImageObject([]byte("not an ELF image"), "[vdso]"); err == nil {
		t.Error("a non-ELF image gave an object")
	}
	for i := 0; i < maxImages+2; i++ {
		v := bytes.Clone(img)
		v[len(v)-2] ^= byte(i + 1)
		if _, err := c.ImageObject(v, "[vdso]"); err != nil {
			t.Fatalf("image %d: %v", i, err)
		}
	}
	if n := len(c.images["[vdso]"]); n > maxImages {
		t.Errorf("the cache keeps %d images, more than %d", n, maxImages)
	}
	// The caller's buffer is its own again: changing it changes no
	// object's image.
	buf := bytes.Clone(img)
	o, err := c.ImageObject(buf, "[vdso]")
	if err != nil || o != a {
		t.Fatalf("the first image again: %v", err)
	}
	clear(buf)
	if b, err := c.ImageObject(bytes.Clone(img), "[vdso]"); err != nil || b != a {
		t.Errorf("after the caller cleared its buffer, the image gave another object (%v)", err)
	}
}
