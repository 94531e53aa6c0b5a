package i386_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/i386"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// listSrc is libunwind's definition of _U_dyn_info_list_addr (src/mi/
// dyn-info-list.c) with the variable's visibility chosen by -DHIDDEN.
const listSrc = `
struct list { void *first; unsigned long generation; };
#ifdef HIDDEN
__attribute__((visibility("hidden")))
#endif
struct list _U_dyn_info_list;
unsigned long _U_dyn_info_list_addr(void) { return (unsigned long)&_U_dyn_info_list; }
`

// listMain loads each library named on the command line (or, built with
// the function linked in, uses its own), prints where its
// _U_dyn_info_list_addr is and what calling it returns, and crashes.
const listMain = `
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
typedef unsigned long (*fn_t)(void);
#ifdef STATIC
unsigned long _U_dyn_info_list_addr(void);
#endif
int main(int argc, char **argv) {
#ifdef STATIC
	printf("fn=%#lx list=%#lx\n", (unsigned long)_U_dyn_info_list_addr, _U_dyn_info_list_addr());
#else
	for (int i = 1; i < argc; i++) {
		void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
		fn_t f = h ? (fn_t)dlsym(h, "_U_dyn_info_list_addr") : 0;
		if (!f) { fprintf(stderr, "%s\n", dlerror()); return 1; }
		printf("fn=%#lx list=%#lx\n", (unsigned long)f, f());
	}
#endif
	fflush(stdout);
	abort();
}
`

var fnListRE = regexp.MustCompile(`fn=0x([0-9a-f]+) list=0x([0-9a-f]+)`)

// TestDynListAddr: the code of _U_dyn_info_list_addr as the i686 gcc
// compiles it (a hidden variable: lea @GOTOFF after the pc thunk; a
// default-visibility one: a load from the GOT; -fcf-protection: an
// endbr32 first; position-dependent: mov $imm), decoded from real cores;
// the oracle is what the function returned when the process called it.
// (libunwind itself is not installed for i386: this is its source
// compiled by the same compiler.)
func TestDynListAddr(t *testing.T) {
	testenv.NeedCores(t)
	dir := t.TempDir()
	srcPath := filepath.Join(dir, "list.c")
	if err := os.WriteFile(srcPath, []byte(listSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	var libs []string
	for i, flags := range [][]string{{"-DHIDDEN"}, nil, {"-DHIDDEN", "-fcf-protection"}} {
		lib := filepath.Join(dir, fmt.Sprintf("liblist%d.so", i))
		testenv.Build(t, testenv.I386.CC(), append([]string{"-O2", "-fPIC", "-shared", "-o", lib, srcPath}, flags...)...)
		libs = append(libs, lib)
	}
	dyn := testenv.BuildCross(t, testenv.I386, dir, "dyn", listMain, append([]string{"-O1", "-ldl"}, testenv.I386Dynamic...)...)
	static := testenv.BuildCross(t, testenv.I386, dir, "static", listMain, "-O1", "-DSTATIC", "-static", "-fno-pic", "-no-pie", srcPath)
	for _, run := range []struct {
		exe  string
		args []string
	}{{dyn, libs}, {static, nil}} {
		core, out := testenv.Crash(t, run.exe, run.args...)
		pairs := fnListRE.FindAllStringSubmatch(string(out), -1)
		if len(pairs) != max(len(run.args), 1) {
			t.Fatalf("%s printed %q", run.exe, out)
		}
		s, err := analyze.Open(core, analyze.Options{Executable: run.exe})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pairs {
			fn, _ := strconv.ParseUint(p[1], 16, 64)
			want, _ := strconv.ParseUint(p[2], 16, 64)
			got, err := i386.Arch{}.DynListAddr(s.AddrSpace(), nil, 0, fn)
			if err != nil || got != want {
				t.Errorf("%s: _U_dyn_info_list_addr at %#x: got %#x, %v; the process got %#x", run.exe, fn, got, err, want)
			}
		}
		s.Close()
	}
}
