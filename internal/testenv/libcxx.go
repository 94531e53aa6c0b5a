package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// libcxxPackages are Debian's packages of LLVM 14's libc++ and libc++abi:
// the headers, the libraries and their links.
var libcxxPackages = []string{"libc++-14-dev", "libc++1-14", "libc++abi-14-dev", "libc++abi1-14"}

// LibCxx is a private copy of LLVM 14's libc++ and libc++abi.
type LibCxx struct {
	Include string // the C++ headers (include/c++/v1)
	Lib     string // libc++.so, libc++abi.so
}

// Flags are clang++'s flags to compile and link against this copy, the
// run-time search path included.
func (l LibCxx) Flags() []string {
	return []string{"-stdlib=libc++", "-nostdinc++", "-isystem", l.Include, "-L" + l.Lib, "-Wl,-rpath," + l.Lib}
}

// NeedLibCxx unpacks Debian's libc++ packages (once per machine, into
// the user's cache directory) and returns where they are. They are not
// installed: libc++-14-dev conflicts with libunwind-dev, which other
// tests need. apt-get download fetches them and dpkg -x unpacks them;
// either failing skips the test, or fails it under CI=true.
func NeedLibCxx(t testing.TB) LibCxx {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(cache, "coreunwind-tests")
	root := filepath.Join(base, "libc++-14")
	llvm := filepath.Join(root, "usr", "lib", "llvm-14")
	l := LibCxx{Include: filepath.Join(llvm, "include", "c++", "v1"), Lib: filepath.Join(llvm, "lib")}
	if _, err := os.Stat(filepath.Join(l.Lib, "libc++abi.so")); err == nil {
		return l
	}
	aptGet := NeedTool(t, "apt-get")
	dpkg := NeedTool(t, "dpkg")
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	// Unpacked beside, then renamed into place: concurrent test
	// processes each unpack their own and the first rename wins.
	tmp, err := os.MkdirTemp(base, "libc++-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	debs := filepath.Join(tmp, "debs")
	if err := os.Mkdir(debs, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(aptGet, append([]string{"download"}, libcxxPackages...)...)
	cmd.Dir = debs
	if out, err := cmd.CombinedOutput(); err != nil {
		Unavailable(t, fmt.Sprintf("apt-get download %v: %v\n%s", libcxxPackages, err, out))
	}
	files, err := filepath.Glob(filepath.Join(debs, "*.deb"))
	if err != nil || len(files) != len(libcxxPackages) {
		Unavailable(t, fmt.Sprintf("apt-get download %v gave %d packages: %v", libcxxPackages, len(files), err))
	}
	unpacked := filepath.Join(tmp, "root")
	for _, f := range files {
		if out, err := exec.Command(dpkg, "-x", f, unpacked).CombinedOutput(); err != nil {
			t.Fatalf("dpkg -x %s: %v\n%s", f, err, out)
		}
	}
	if err := os.Rename(unpacked, root); err != nil && !os.IsExist(err) {
		if _, serr := os.Stat(l.Lib); serr != nil {
			t.Fatalf("unpacking libc++: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(l.Lib, "libc++abi.so")); err != nil {
		t.Fatalf("the libc++ packages have no libc++abi.so: %v", err)
	}
	return l
}
