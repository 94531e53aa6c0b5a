package testenv

import (
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

// NeedLibCxx unpacks Debian's libc++ packages (UnpackedDebs) and returns
// where they are. They are not installed: libc++-14-dev conflicts with
// libunwind-dev, which other tests need.
func NeedLibCxx(t testing.TB) LibCxx {
	t.Helper()
	llvm := filepath.Join("usr", "lib", "llvm-14")
	root := UnpackedDebs(t, "libc++-14", libcxxPackages, filepath.Join(llvm, "lib", "libc++abi.so"))
	return LibCxx{Include: filepath.Join(root, llvm, "include", "c++", "v1"), Lib: filepath.Join(root, llvm, "lib")}
}
