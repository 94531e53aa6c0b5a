package triagebeam

import (
	"os"
	"strings"
	"syscall"
)

// DieOnEnv names a fault the worker-kill test injects: when set, a worker
// about to analyze a core whose name contains the variable's value kills
// its own process with SIGKILL (a machine lost mid-bundle: no deferred
// cleanup, no error sent to the runner). Never set in production.
const DieOnEnv = "COREUNWIND_BEAM_TEST_DIE_ON"

func testHook(core string) {
	if v := os.Getenv(DieOnEnv); v != "" && strings.Contains(core, v) {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
}
