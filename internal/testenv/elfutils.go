package testenv

import (
	"compress/bzip2"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// ElfutilsTestsEnv names the directory holding elfutils' test cores, as
// test.sh unpacks them (internal/testenv/elfutils-tests.sh).
const ElfutilsTestsEnv = "COREUNWIND_ELFUTILS_TESTS"

// ElfutilsTestsDir is where test.sh unpacks elfutils' test cores unless
// the environment names another directory: testdata/elfutils at the
// module root (ignored by git).
func ElfutilsTestsDir() string {
	if d := os.Getenv(ElfutilsTestsEnv); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "elfutils")
}

// ElfutilsFile returns name (e.g. "backtrace.aarch64.core") from
// elfutils' test suite, decompressed into a temporary directory: real
// cores and executables written on real machines of each architecture.
// A missing file is Unavailable (a failure under CI=true): test.sh fetches
// them from Debian's elfutils source package.
func ElfutilsFile(t testing.TB, name string) string {
	t.Helper()
	src := filepath.Join(ElfutilsTestsDir(), name+".bz2")
	in, err := os.Open(src)
	if err != nil {
		Unavailable(t, "elfutils test file "+name+" (run internal/testenv/elfutils-tests.sh, as test.sh does): "+err.Error())
	}
	defer in.Close()
	out := filepath.Join(t.TempDir(), name)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, bzip2.NewReader(in)); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if filepath.Ext(name) == ".exec" {
		os.Chmod(out, 0o755)
	}
	return out
}
