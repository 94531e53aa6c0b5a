package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// A program is one test program built from e2e/testdata/progs. Each is built
// once per test run into its own directory under workDir, however many tests
// use it.
type program struct {
	// tools the build needs; missing ones skip (or under CI fail) the test.
	tools []string
	// build compiles the sources into dir and returns the executable's path.
	build func(src, dir string) (string, error)
}

// liveJITFlags build livejit.c as code for the GDB JIT interface: a
// static object without a C library, linked where liveproc maps it.
var liveJITFlags = []string{"-O2", "-g", "-fasynchronous-unwind-tables", "-nostdlib", "-static", "-no-pie",
	"-Wl,-e,jit_entry", "-Wl,-Ttext-segment=0x60000000", "-Wl,--build-id", "livejit.c"}

// cc returns a build for one C or C++ program compiled in one step.
func cc(compiler, out string, args ...string) program {
	return program{
		tools: []string{compiler},
		build: func(src, dir string) (string, error) {
			exe := filepath.Join(dir, out)
			full := append([]string{"-o", exe}, srcPaths(src, args)...)
			return exe, runIn(dir, compiler, full...)
		},
	}
}

// dwz returns a build of p whose executable dwz then rewrites: DIEs its
// units share move into partial units that they import.
func dwz(p program) program {
	return program{
		tools: append(slices.Clone(p.tools), "dwz"),
		build: func(src, dir string) (string, error) {
			exe, err := p.build(src, dir)
			if err != nil {
				return "", err
			}
			return exe, runIn(dir, "dwz", exe)
		},
	}
}

// dwzMulti returns a build of p that dwz -m rewrites with a copy of
// it: the DIEs and strings both share move into a supplementary file,
// common.dwz beside them, which each names by a relative path in
// .gnu_debugaltlink (DW_FORM_GNU_ref_alt, DW_FORM_GNU_strp_alt).
func dwzMulti(p program) program {
	return program{
		tools: append(slices.Clone(p.tools), "dwz"),
		build: func(src, dir string) (string, error) {
			exe, err := p.build(src, dir)
			if err != nil {
				return "", err
			}
			twin := exe + "-twin"
			b, err := os.ReadFile(exe)
			if err == nil {
				err = os.WriteFile(twin, b, 0o755)
			}
			if err != nil {
				return "", err
			}
			return exe, runIn(dir, "dwz", "-m", filepath.Join(dir, "common.dwz"), "-r", exe, twin)
		},
	}
}

// srcPaths makes the arguments that name files of progs/ absolute.
func srcPaths(src string, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.HasSuffix(a, ".c") || strings.HasSuffix(a, ".cc") || strings.HasSuffix(a, ".rs") {
			a = filepath.Join(src, a)
		}
		out[i] = a
	}
	return out
}

var programs = map[string]program{
	"abort":        cc("gcc", "abort", "-g", "-O0", "abort.c"),
	"null-O0":      cc("gcc", "nullderef", "-g", "-O0", "nullderef.c"),
	"null-O2-nofp": cc("gcc", "nullderef", "-g", "-O2", "-fomit-frame-pointer", "nullderef.c"),
	"null-static":  cc("gcc", "nullderef", "-g", "-O1", "-static", "nullderef.c"),
	"null-pie":     cc("gcc", "nullderef", "-g", "-O1", "-fPIE", "-pie", "nullderef.c"),
	"null-nopie":   cc("gcc", "nullderef", "-g", "-O1", "-fno-pie", "-no-pie", "nullderef.c"),
	"sighandler":   cc("gcc", "sighandler", "-g", "-O1", "sighandler.c"),
	"reraise":      cc("gcc", "reraise", "-g", "-O1", "reraise.c"),
	"threads":      cc("gcc", "threads", "-g", "-O2", "-pthread", "threads.c"),
	"mdcrash":      cc("gcc", "mdcrash", "-g", "-O1", "-pthread", "mdcrash.c"),
	"sleeper":      cc("gcc", "sleeper", "-g", "-O1", "-pthread", "sleeper.c"),
	"liveproc":     cc("gcc", "liveproc", "-g", "-O1", "-pthread", "liveproc.c"),
	"livemem":      cc("gcc", "livemem", "-g", "-O1", "-pthread", "livemem.c"),
	"livezmain":    cc("gcc", "livezmain", "-g", "-O1", "-pthread", "livezmain.c"),
	"liverooted":   cc("gcc", "liveproc", "-g", "-O1", "-pthread", "-Wl,--dynamic-linker=/rt/ld.so", "-Wl,-rpath=/rt", "liveproc.c"),
	"livejit":      cc("gcc", "livejit.elf", liveJITFlags...),
	"nullfn-O0":    cc("gcc", "nullfn", "-g", "-O0", "nullfn.c"),
	"nullfn-O2":    cc("gcc", "nullfn", "-g", "-O2", "nullfn.c"),
	"recurse":      cc("gcc", "recurse", "-g", "-O0", "recurse.c"),
	"sigentry":     cc("gcc", "sigentry", "-g", "-O0", "-pthread", "sigentry.c"),
	"overflow":     cc("gcc", "overflow", "-g", "-O0", "overflow.c"),
	"altstack":     cc("gcc", "altstack", "-g", "-O0", "-pthread", "altstack.c"),
	"exception":    cc("g++", "exception", "-g", "-O1", "exception.cc"),
	// libstdc++ linked in: its exception globals are in the
	// executable's own TLS block.
	"exception-static": cc("g++", "exception", "-g", "-O1", "-static", "exception.cc"),
	"what":             cc("g++", "what", "-g", "-O1", "what.cc"),
	"what-static":      cc("g++", "what", "-g", "-O1", "-static", "what.cc"),
	"crashkinds":       cc("gcc", "crashkinds", "-g", "-O0", "-pthread", "crashkinds.c"),
	"inline":           cc("g++", "inline", "-g", "-O2", "inline.cc"),
	"units-lto":        cc("g++", "units", "-g", "-O2", "-flto", "-gz=zlib", "units_main.cc", "units_walk.cc", "units_leaf.cc"),
	"units-dwz":        dwz(cc("g++", "units", "-g", "-O2", "units_main.cc", "units_walk.cc", "units_leaf.cc")),
	"units-dwzm":       dwzMulti(cc("g++", "units", "-g", "-O2", "units_main.cc", "units_walk.cc", "units_leaf.cc")),
	// cleanup and buf_free end in jumps (tail calls) at -O2.
	"tailcall": cc("gcc", "tailcall", "-g", "-O2", "tailcall.c"),
	"rust-panic": {
		tools: []string{"rustc"},
		build: func(src, dir string) (string, error) {
			exe := filepath.Join(dir, "panic")
			return exe, runIn(dir, "rustc", "-g", "-C", "panic=abort", "-C", "opt-level=1",
				"--crate-name", "rustcrash", "-o", exe, filepath.Join(src, "panic.rs"))
		},
	},
	// stock.rs: a panic in a named thread, with panic=abort or with
	// unwinding and a hook that aborts; edition 2015's literal panic
	// goes through begin_panic, 2021's through panic_fmt.
	"stock-abort":   rustBuild("stock.rs", "-C", "panic=abort", "--edition", "2021"),
	"stock-unwind":  rustBuild("stock.rs", "-C", "panic=unwind", "--edition", "2021"),
	"stock-2015":    rustBuild("stock.rs", "-C", "panic=abort"),
	"gocrash":       goBuild("gocrash", ""),
	"i386-gocrash":  goBuild("gocrash", "386"),
	"goparked":      goBuild("goparked", ""),
	"i386-goparked": goBuild("goparked", "386"),
	// The same program with another Go build ID (a string changed).
	"goparked-variant": goBuild("goparked", "", "-ldflags=-X main.variant=2"),
	"gofeat":           goBuild("gofeat", ""),
	// Go 1.23 keeps pprof labels in a map (1.24 on: a sorted slice);
	// the toolchain comes from the Go module proxy's cache; GOPATH mode,
	// as the repository's go.mod is newer than 1.23 reads.
	"gofeat-go1.23": goBuild("gofeat", "", "GOTOOLCHAIN=go1.23.12", "GO111MODULE=off"),
	"nocfi":         nocfiBuild("", nil, nil),
	"dlopen": {
		tools: []string{"gcc"},
		build: func(src, dir string) (string, error) {
			exe := filepath.Join(dir, "dlopen_main")
			if err := runIn(dir, "gcc", "-g", "-O1", "-shared", "-fPIC", "-o", filepath.Join(dir, "libplugin.so"),
				filepath.Join(src, "plugin.c")); err != nil {
				return "", err
			}
			return exe, runIn(dir, "gcc", "-g", "-O0", "-o", exe, filepath.Join(src, "dlopen_main.c"), "-ldl")
		},
	},
	// A program whose stack passes through its shared library (a
	// callback called from inside it); the executable finds the library
	// beside it ($ORIGIN), so a private copy runs with its own.
	"callback": {
		tools: []string{"gcc"},
		build: func(src, dir string) (string, error) {
			exe := filepath.Join(dir, "callback")
			if err := runIn(dir, "gcc", callbackLibArgs(src, filepath.Join(dir, "libcallback.so"))...); err != nil {
				return "", err
			}
			return exe, runIn(dir, "gcc", "-g", "-O1", "-o", exe, filepath.Join(src, "callback_main.c"),
				"-L"+dir, "-lcallback", "-Wl,-rpath,$ORIGIN")
		},
	},
	// Stripped executables whose symbols and DWARF live in a separate file:
	// one found through its build ID, one (built without a build ID) through
	// .gnu_debuglink. The debug file is left as nullderef.debug in dir.
	"null-stripped-buildid":   strippedBuild("-Wl,--build-id=sha1", false),
	"null-stripped-debuglink": strippedBuild("-Wl,--build-id=none", true),

	// i386: Debian's i686 cross compiler; the x86_64 kernel runs the
	// programs natively and writes real i386 cores.
	"i386-null-O0":      i386cc("nullderef", "-g", "-O0", "nullderef.c"),
	"i386-null-O2-nofp": i386cc("nullderef", "-g", "-O2", "-fomit-frame-pointer", "nullderef.c"),
	"i386-null-static":  cc(testenv.I386.CC(), "nullderef", "-g", "-O1", "-static", "nullderef.c"),
	"i386-abort":        i386cc("abort", "-g", "-O0", "abort.c"),
	"i386-crashkinds":   i386cc("crashkinds", "-g", "-O0", "-pthread", "crashkinds.c"),
	// --disable-new-dtags: an RPATH, which (unlike I386Dynamic's
	// RUNPATH) libstdc++'s own libm and libgcc_s are found by too.
	"i386-exception":         cc(testenv.I386.Triple+"-g++", "exception", append([]string{"-g", "-O1", "exception.cc", "-Wl,--disable-new-dtags"}, testenv.I386Dynamic...)...),
	"i386-exception-static":  cc(testenv.I386.Triple+"-g++", "exception", "-g", "-O1", "-static", "exception.cc"),
	"i386-sighandler":        i386cc("sighandler", "-g", "-O1", "sighandler.c"),
	"i386-reraise":           i386cc("reraise", "-g", "-O1", "reraise.c"),
	"i386-sighandler-static": cc(testenv.I386.CC(), "sighandler", "-g", "-O1", "-static", "sighandler.c"),
	"i386-sigtramp":          i386cc("sigtramp", "-g", "-O1", "sigtramp_i386.c"),
	"i386-threads":           i386cc("threads", "-g", "-O2", "-pthread", "threads.c"),
	"i386-sleeper":           i386cc("sleeper", "-g", "-O1", "-pthread", "sleeper.c"),
	"i386-liveproc":          i386cc("liveproc", "-g", "-O1", "-pthread", "liveproc.c"),
	"i386-livejit":           cc(testenv.I386.CC(), "livejit.elf", liveJITFlags...),
	"i386-nocfi":             nocfiBuild(testenv.I386.Triple+"-", nil, testenv.I386Dynamic),
}

// callbackLibArgs are gcc's arguments to build libcallback.so at out,
// more (-DREBUILT=1) making another build of it.
func callbackLibArgs(src, out string, more ...string) []string {
	return append([]string{"-g", "-O2", "-shared", "-fPIC", "-o", out, filepath.Join(src, "callback_lib.c")}, more...)
}

// rustBuild builds one Rust source file with debug information at
// opt-level 1 and more options.
func rustBuild(file string, more ...string) program {
	return program{
		tools: []string{"rustc"},
		build: func(src, dir string) (string, error) {
			exe := filepath.Join(dir, strings.TrimSuffix(file, ".rs"))
			args := append([]string{"-g", "-C", "opt-level=1", "-o", exe, filepath.Join(src, file)}, more...)
			return exe, runIn(dir, "rustc", args...)
		},
	}
}

// goBuild builds the Go program in progs/name for GOARCH goarch ("":
// the host's), with more go build flags.
func goBuild(name, goarch string, flags ...string) program {
	return goBuildEnv(name, []string{"GOARCH=" + goarch}, flags...)
}

// goBuildEnv builds the Go program in progs/name with env ("NAME=value")
// in go build's environment, with more go build flags.
func goBuildEnv(name string, env []string, flags ...string) program {
	return program{
		tools: []string{"go"},
		build: func(src, dir string) (string, error) {
			exe := filepath.Join(dir, name)
			// Flags of the form NAME=VALUE are environment (GOTOOLCHAIN).
			env, fl := slices.Clone(env), flags
			for len(fl) > 0 && !strings.HasPrefix(fl[0], "-") && strings.Contains(fl[0], "=") {
				env, fl = append(env, fl[0]), fl[1:]
			}
			args := append(append(append(env, goTool(), "build", "-o", exe), fl...), "main.go")
			return exe, runIn(filepath.Join(src, name), "env", args...)
		},
	}
}

// i386cc builds a dynamic i386 program that the kernel runs with the
// cross sysroot's loader and C library.
func i386cc(out string, args ...string) program {
	return cc(testenv.I386.CC(), out, append(args, testenv.I386Dynamic...)...)
}

// addCrossCrashPrograms registers, under prefix-NAME, the crash programs
// every qemu-user arch suite builds with arch's cross compiler:
// crossarch.c static at -O1 ("static") and at -O2 without a frame
// pointer ("nofp"), dynamic ("dyn", with dynFlags), nullfn.c ("nullfn"),
// and nocfi_funcs.c without any CFI, with and without a frame pointer
// ("nocfi", "nocfi-nofp"). static are the link flags of the static ones
// (sources of progs/ among them are compiled in: sh4rt.c).
func addCrossCrashPrograms(prefix string, arch testenv.CrossArch, static, dynFlags []string) {
	gcc := arch.CC()
	add := func(name, out string, flags ...string) {
		programs[prefix+"-"+name] = cc(gcc, out, flags...)
	}
	add("static", "crash", append([]string{"-g", "-O1", "crossarch.c", "-lpthread"}, static...)...)
	add("nofp", "crash", append([]string{"-g", "-O2", "-fomit-frame-pointer", "crossarch.c", "-lpthread"}, static...)...)
	add("dyn", "crash", append(append([]string{"-g", "-O1"}, dynFlags...), "-Wl,-z,separate-code", "crossarch.c", "-lpthread")...)
	add("nullfn", "nullfn", append([]string{"-g", "-O2", "nullfn.c"}, static...)...)
	programs[prefix+"-nocfi"] = nocfiBuild(arch.Triple+"-", nil, static)
	programs[prefix+"-nocfi-nofp"] = nocfiBuild(arch.Triple+"-", []string{"-fomit-frame-pointer"}, static)
}

// nocfiBuild builds the nocfi program with the toolchain whose tools are
// named prefix+"gcc" and prefix+"objcopy": nocfi_funcs.c without any
// unwind tables (funcFlags added), linked with nocfi_main.c (linkFlags
// added).
func nocfiBuild(prefix string, funcFlags, linkFlags []string) program {
	gcc, objcopy := prefix+"gcc", prefix+"objcopy"
	return program{
		tools: []string{gcc, objcopy},
		build: func(src, dir string) (string, error) {
			exe := filepath.Join(dir, "nocfi")
			obj := filepath.Join(dir, "nocfi_funcs.o")
			args := append([]string{"-g", "-O0", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables"}, funcFlags...)
			if err := runIn(dir, gcc, append(args, "-c", "-o", obj, filepath.Join(src, "nocfi_funcs.c"))...); err != nil {
				return "", err
			}
			// With -g, gcc still writes .debug_frame for these functions;
			// drop it so they really have no CFI at all.
			if err := runIn(dir, objcopy, "--remove-section", ".debug_frame", obj); err != nil {
				return "", err
			}
			return exe, runIn(dir, gcc, append([]string{"-g", "-O0", "-o", exe, filepath.Join(src, "nocfi_main.c"), obj}, srcPaths(src, linkFlags)...)...)
		},
	}
}

func strippedBuild(buildID string, debuglink bool) program {
	return program{
		tools: []string{"gcc", "objcopy", "strip"},
		build: func(src, dir string) (string, error) {
			exe := filepath.Join(dir, "nullderef")
			dbg := filepath.Join(dir, "nullderef.debug")
			steps := [][]string{
				{"gcc", "-g", "-O1", buildID, "-o", exe, filepath.Join(src, "nullderef.c")},
				{"objcopy", "--only-keep-debug", exe, dbg},
				{"strip", "--strip-all", exe},
			}
			if debuglink {
				steps = append(steps, []string{"objcopy", "--add-gnu-debuglink=" + dbg, exe})
			}
			for _, s := range steps {
				if err := runIn(dir, s[0], s[1:]...); err != nil {
					return "", err
				}
			}
			return exe, nil
		},
	}
}

type builtProgram struct {
	once sync.Once
	exe  string
	err  error
}

var (
	builtMu sync.Mutex
	built   = map[string]*builtProgram{}
)

// buildProgram returns the executable of a named program, building it on
// first use. A missing compiler skips (or under CI fails) the test; a build
// error fails it.
func buildProgram(t *testing.T, name string) string {
	t.Helper()
	p, ok := programs[name]
	if !ok {
		t.Fatalf("no program %q", name)
	}
	for _, tool := range p.tools {
		testenv.NeedTool(t, tool)
	}
	builtMu.Lock()
	b := built[name]
	if b == nil {
		b = &builtProgram{}
		built[name] = b
	}
	builtMu.Unlock()
	b.once.Do(func() {
		dir := filepath.Join(workDir, "progs", name)
		if b.err = os.MkdirAll(dir, 0o755); b.err != nil {
			return
		}
		src := filepath.Join(repoRoot, "e2e", "testdata", "progs")
		b.exe, b.err = p.build(src, dir)
	})
	if b.err != nil {
		t.Fatalf("building %s: %v", name, b.err)
	}
	return b.exe
}

// runIn runs a build step and returns its output in the error.
func runIn(dir, name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}
