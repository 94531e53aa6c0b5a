package analyze

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// namedPanicProg panics in a thread named "order-worker": std keeps the
// thread's handle in its thread-locals, which crash analysis finds by
// the statics' demangled paths.
const namedPanicProg = `fn main() {
    std::thread::Builder::new()
        .name("order-worker".into())
        .spawn(|| panic!("not enough stock"))
        .unwrap()
        .join()
        .unwrap();
}
`

// TestRustStaticsOncePerBinary: the cores of one Rust executable in a
// batch (one elfx.Cache) read its statics once. Each lookup of a static
// by its path read the symbol table and demangled every static again
// before, three times a core: a third of a batch of Rust cores' CPU.
// The later core's lookups allocate a small part of what the first
// core's did, and find the same statics.
func TestRustStaticsOncePerBinary(t *testing.T) {
	rustc := testenv.NeedTool(t, "rustc")
	dir := t.TempDir()
	src := filepath.Join(dir, "main.rs")
	if err := os.WriteFile(src, []byte(namedPanicProg), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "prog")
	if out, err := exec.Command(rustc, "-g", "-C", "panic=abort", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("rustc: %v\n%s", err, out)
	}
	cores := crashTimes(t, dir, exe, 2, nil)
	objs := elfx.NewCache()
	defer objs.Close()
	// paths is what crash analysis looks up for a Rust panic's thread
	// name: std's thread-locals by path (CURRENT and ID in a recent std,
	// THREAD_INFO in the old one: Debian 12's rustc 1.63, which CI uses),
	// then a C++-style thread-local by name (none here).
	paths := []string{"std::thread::current::CURRENT", "std::thread::current::id::ID", "std::thread::main_thread::MAIN",
		"std::sys_common::thread_info::THREAD_INFO::__getit::VAL"}
	type found struct {
		value   uint64
		tls, ok bool
	}
	lookups := func(core string) (got []found, allocs uint64) {
		s, err := Open(core, Options{Executable: exe, Objects: objs})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		allocs = mallocs(func() {
			for _, p := range paths {
				v, tls, ok := s.target.exeRustSymbol(p)
				got = append(got, found{v, tls, ok})
			}
			v, ok := s.target.exeTLSSymbol("no_such_thread_local")
			got = append(got, found{value: v, ok: ok})
		})
		return got, allocs
	}
	first, firstAllocs := lookups(cores[0])
	later, laterAllocs := lookups(cores[1])
	t.Logf("first %v: %d objects; later: %d", first, firstAllocs, laterAllocs)
	newStd := first[0].ok && first[0].tls && first[1].ok && first[1].tls
	oldStd := first[3].ok && first[3].tls
	if !newStd && !oldStd {
		t.Errorf("neither std's thread-locals CURRENT and ID nor the old std's THREAD_INFO found: %v", first)
	}
	if first[4].ok {
		t.Errorf("a thread-local no program has was found: %v", first[4])
	}
	for i := range first {
		// The executable is PIE: a data static's run-time address may
		// differ; thread-locals' offsets do not.
		if first[i].ok != later[i].ok || first[i].tls != later[i].tls || first[i].tls && first[i].value != later[i].value {
			t.Errorf("lookup %d: first core %v, later core %v", i, first[i], later[i])
		}
	}
	if laterAllocs*10 > firstAllocs {
		t.Errorf("the later core's lookups allocated %d objects, the first core's %d: the statics were read again", laterAllocs, firstAllocs)
	}
}
