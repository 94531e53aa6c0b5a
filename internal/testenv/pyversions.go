package testenv

import (
	"os"
	"testing"
)

// PyVersionsEnv asks for the CPython version matrix (bench/pyversions.sh
// sets it to "all"): CI's slice is Debian's python3.11, which the other
// Python tests require; the matrix needs CPython 3.7 to 3.13 built with
// pyenv.
const PyVersionsEnv = "COREUNWIND_PY_VERSIONS"

// NeedPyVersions skips t unless the version matrix was asked for; asked
// for, the matrix's Pythons are required (found: a failure under
// CI=true when none is, as for any missing tool).
func NeedPyVersions(t testing.TB, found int, where string) {
	t.Helper()
	if os.Getenv(PyVersionsEnv) != "all" {
		t.Skipf("the CPython version matrix runs with %s=all (bench/pyversions.sh)", PyVersionsEnv)
	}
	if found == 0 {
		Unavailable(t, "no pyenv CPython under "+where+" (PYENV_ROOT)")
	}
}
