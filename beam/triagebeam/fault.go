package triagebeam

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// DieOnEnv names a fault the worker-kill test injects: when set, a worker
// about to analyze a core whose name contains the variable's value kills
// its own process with SIGKILL (a machine lost mid-bundle: no deferred
// cleanup, no error sent to the runner). Never set in production.
const DieOnEnv = "COREUNWIND_BEAM_TEST_DIE_ON"

// PauseOnEnv names a pause the interruption test injects: when set, a
// worker about to analyze a core whose name contains the variable's
// value (its archive member extracted in the temporary directory) prints
// "READY" on stdout and waits a minute for the test's signal. Never set
// in production.
const PauseOnEnv = "COREUNWIND_BEAM_TEST_PAUSE_ON"

func testHook(core string) {
	if v := os.Getenv(DieOnEnv); v != "" && strings.Contains(core, v) {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	if v := os.Getenv(PauseOnEnv); v != "" && strings.Contains(core, v) {
		fmt.Println("READY")
		time.Sleep(time.Minute)
	}
}
