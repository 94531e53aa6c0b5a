package e2e

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Every report pays the package initialisation of coreunwind's whole
// executable before it reads a core, and on a small core that start is
// most of the run. A table, map or regexp a package builds at init costs
// every process its heap and its CPU, whether or not the run uses it, so
// coreunwind's own packages keep such values as constant data or build
// them with their first use. The budgets below are bytes the runtime
// reports it allocated (GODEBUG=inittrace=1), not time: they hold on a
// loaded machine. Before the tables and regexps were made lazily, the
// module's inits allocated 155 KiB (45 KiB of them in internal/inflate,
// 31 KiB in analyze/crashinfo's regexps); after, 22 KiB, at most 3 KiB
// in any package.
const (
	initBytesModule  = 40 << 10 // all of the module's packages together
	initBytesPackage = 8 << 10  // any one package: less than a regexp or two
)

// initLine is one line of GODEBUG=inittrace=1's report.
var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

// TestStartupInitAllocs runs `coreunwind --version` with the runtime's
// init trace and holds the module's package inits to their budgets.
func TestStartupInitAllocs(t *testing.T) {
	needCoreunwind(t)
	cmd := exec.Command(coreunwindBin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("coreunwind --version: %v\n%s", err, out)
	}
	const module = "github.com/coreunwind/coreunwind"
	total, packages := 0, 0
	for _, line := range strings.Split(string(out), "\n") {
		m := initLine.FindStringSubmatch(line)
		if m == nil || m[1] != module && !strings.HasPrefix(m[1], module+"/") {
			continue
		}
		packages++
		bytes, _ := strconv.Atoi(m[2])
		total += bytes
		if bytes > initBytesPackage {
			t.Errorf("package %s allocates %d bytes (%s allocations) at init, more than %d: build its tables with their first use", m[1], bytes, m[3], initBytesPackage)
		}
	}
	// The trace names every package with an init; the module has dozens.
	if packages < 10 {
		t.Fatalf("the init trace names %d of the module's packages; output:\n%s", packages, out)
	}
	if total > initBytesModule {
		t.Errorf("the module's %d package inits allocate %d bytes, more than %d", packages, total, initBytesModule)
	}
	t.Logf("%d package inits of the module allocate %d bytes", packages, total)
}
