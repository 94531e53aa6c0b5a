package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BreakpadTools are Breakpad's prebuilt x86-64 tools and its source, as
// npm's minidump package carries them: the references for minidumps.
type BreakpadTools struct {
	Stackwalk string // minidump_stackwalk
	Dump      string // minidump_dump
	DumpSyms  string // dump_syms
	Source    string // Breakpad's source tree (client, tools)
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
