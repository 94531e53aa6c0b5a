package testenv

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// BreakpadTools are Breakpad's prebuilt x86-64 tools and its source, as
// npm's minidump package carries them: the references for minidumps.
type BreakpadTools struct {
	Stackwalk string // minidump_stackwalk
	Dump      string // minidump_dump
	DumpSyms  string // dump_syms
	Source    string // Breakpad's source tree (client, tools)
	Cache     string // the directory the tests keep what they build from it in
}

// breakpadPackage is the npm package and version the tests use.
const breakpadPackage = "minidump@0.26.0"

// Breakpad installs (once per machine, into the user's cache directory:
// TMPDIR is new for every test run) npm's
// minidump package and returns its tools. npm missing, or an install that
// fails, skips the test, or fails it under CI=true. The package's install
// script (which fetches Breakpad's submodules and builds) is not run: the
// prebuilt tools are what the tests need.
func Breakpad(t testing.TB) BreakpadTools {
	t.Helper()
	npm := NeedTool(t, "npm")
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(cache, "coreunwind-tests")
	root := filepath.Join(base, "npm-"+breakpadPackage)
	pkg := filepath.Join(root, "node_modules", "minidump")
	tools := BreakpadTools{
		Stackwalk: filepath.Join(pkg, "bin", "linux-x64", "minidump_stackwalk"),
		Dump:      filepath.Join(pkg, "bin", "linux-x64", "minidump_dump"),
		DumpSyms:  filepath.Join(pkg, "bin", "linux-x64", "dump_syms"),
		Source:    filepath.Join(pkg, "deps", "breakpad"),
		Cache:     base,
	}
	if _, err := os.Stat(tools.Stackwalk); err == nil {
		return tools
	}
	// Installed beside, then renamed into place: concurrent test
	// processes each install their own and the first rename wins.
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(base, "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command(npm, "install", "--no-save", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix", tmp, breakpadPackage)
	if out, err := cmd.CombinedOutput(); err != nil {
		Unavailable(t, fmt.Sprintf("npm install %s: %v\n%s", breakpadPackage, err, out))
	}
	if err := os.Rename(tmp, root); err != nil && !os.IsExist(err) {
		if _, serr := os.Stat(tools.Stackwalk); serr != nil {
			t.Fatalf("installing %s: %v", breakpadPackage, err)
		}
	}
	if _, err := os.Stat(tools.Stackwalk); err != nil {
		Unavailable(t, fmt.Sprintf("%s has no linux-x64 minidump_stackwalk: %v", breakpadPackage, err))
	}
	return tools
}

// core2mdSources are the files of Breakpad's source that core2md is built
// from: the tool and the parts of the Linux client it links.
var core2mdSources = []string{
	"tools/linux/core2md/core2md.cc",
	"client/linux/minidump_writer/linux_core_dumper.cc",
	"client/linux/minidump_writer/linux_dumper.cc",
	"client/linux/minidump_writer/linux_ptrace_dumper.cc",
	"client/linux/minidump_writer/minidump_writer.cc",
	"client/linux/minidump_writer/pe_file.cc",
	"client/linux/dump_writer_common/thread_info.cc",
	"client/linux/dump_writer_common/ucontext_reader.cc",
	"client/minidump_file_writer.cc",
	"common/linux/elf_core_dump.cc",
	"common/linux/elfutils.cc",
	"common/linux/file_id.cc",
	"common/linux/linux_libc_support.cc",
	"common/linux/memory_mapped_file.cc",
	"common/linux/safe_readlink.cc",
	"common/string_conversion.cc",
	"common/convert_UTF.cc",
	"common/path_helper.cc",
}

// Core2MD builds Breakpad's core2md (core file and a copy of the dead
// process's /proc/PID files in, minidump out) from the source npm's
// minidump package carries, once per machine, and returns its path.
// The package lacks linux-syscall-support, which Breakpad's client
// includes; breakpad-lss/ beside this file stands in for the few calls
// core2md makes.
func Core2MD(t testing.TB) string {
	t.Helper()
	return buildCore2MD(t, "g++", "core2md")
}

// Core2MDFor is core2md for arch's processes, whose cores it reads as
// Breakpad's client reads only its own architecture's: built with arch's
// cross compiler (static, so that qemu-user runs it without a sysroot)
// and returned as the command that runs it, under arch's qemu-user where
// it has one (i386 programs run natively).
func Core2MDFor(t testing.TB, arch CrossArch) []string {
	t.Helper()
	exe := buildCore2MD(t, arch.Triple+"-g++", "core2md-"+arch.Name, "-static")
	if arch.Qemu == "" {
		return []string{exe}
	}
	return []string{NeedTool(t, arch.Qemu), exe}
}

// buildCore2MD builds core2md with the C++ compiler gxx (and flags),
// once per machine, into the cache under name.
func buildCore2MD(t testing.TB, gxx, name string, flags ...string) string {
	t.Helper()
	bp := Breakpad(t)
	gxx = NeedTool(t, gxx)
	_, self, _, _ := runtime.Caller(0)
	lss := filepath.Join(filepath.Dir(self), "breakpad-lss")
	shim, err := os.ReadFile(filepath.Join(lss, "third_party", "lss", "linux_syscall_support.h"))
	if err != nil {
		t.Fatal(err)
	}
	// Named by the stand-in's content: a changed one builds anew.
	out := filepath.Join(bp.Cache, fmt.Sprintf("%s-%x", name, sha256.Sum256(shim))[:len(name)+17])
	if _, err := os.Stat(out); err == nil {
		return out
	}
	src := filepath.Join(bp.Source, "src")
	tmp := out + ".tmp" + strconv.Itoa(os.Getpid())
	args := append([]string{"-O1", "-w", "-I", lss, "-I", src, "-o", tmp}, flags...)
	for _, f := range core2mdSources {
		args = append(args, filepath.Join(src, f))
	}
	if b, err := exec.Command(gxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", name, err, b)
	}
	if err := os.Rename(tmp, out); err != nil {
		t.Fatal(err)
	}
	return out
}
