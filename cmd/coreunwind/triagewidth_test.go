package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/triage"
)

const settlementCC = `
#include <cstdlib>
namespace accounting { namespace settlement {
template <class Amount> struct GeneralLedgerReconciliation {
	__attribute__((noinline)) void reconcileOutstandingBalances(Amount a) { if (a > 1) abort(); }
};
__attribute__((noinline)) void settleEverythingAtEndOfDay(GeneralLedgerReconciliation<long> &l) { l.reconcileOutstandingBalances(3); }
} }
int main() { accounting::settlement::GeneralLedgerReconciliation<long> l; accounting::settlement::settleEverythingAtEndOfDay(l); return 0; }
`

// The triage table fits $COLUMNS: long signatures and paths are cut
// with "…" (a signature keeps its start, a path its end), and the JSON
// summary still has them whole; with no width to fit, rows are whole.
func TestTriageTableFitsWidth(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "var", "lib", "crash-reports", "nightly-builds", "settlement-service")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "settle.cc")
	if err := os.WriteFile(src, []byte(settlementCC), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "settlement-batch-runner")
	testenv.Build(t, "g++", "-g", "-O0", "-o", exe, src)
	testenv.Crash(t, exe)
	code, js, stderr := runCLI("triage", "--format", "json", "--frames", "3", dir)
	if code != exitcode.OK {
		t.Fatalf("json: exit %d: %s", code, stderr)
	}
	var sum triage.Summary
	if err := json.Unmarshal([]byte(js), &sum); err != nil {
		t.Fatal(err)
	}
	if len(sum.Buckets) != 1 || utf8.RuneCountInString(sum.Buckets[0].Signature) < 80 {
		t.Fatalf("want one bucket with a long signature: %+v", sum.Buckets)
	}
	b := sum.Buckets[0]
	rowOf := func(text string) string {
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, b.ID+" ") {
				return l
			}
		}
		t.Fatalf("no row for bucket %s:\n%s", b.ID, text)
		return ""
	}

	t.Setenv("COLUMNS", "")
	_, whole, _ := runCLI("triage", "--frames", "3", dir)
	if row := rowOf(whole); !strings.Contains(row, b.Signature) || !strings.Contains(row, b.ExampleCore) {
		t.Errorf("with no width, the row is cut:\n%s", row)
	}
	for _, width := range []int{80, 120} {
		t.Setenv("COLUMNS", strconv.Itoa(width))
		code, text, stderr := runCLI("triage", "--frames", "3", dir)
		if code != exitcode.OK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		header := ""
		for _, l := range strings.Split(text, "\n") {
			if n := utf8.RuneCountInString(l); n > width {
				t.Errorf("COLUMNS=%d: a line of %d columns: %q", width, n, l)
			}
			if strings.HasPrefix(l, "BUCKET") {
				header = l
			}
		}
		row := rowOf(text)
		// The signature column starts where its header does.
		at := utf8.RuneCountInString(header[:strings.Index(header, "SIGNATURE")])
		rest := string([]rune(row)[at:])
		i := strings.Index(rest, "…")
		if i < 20 || !strings.HasPrefix(b.Signature, rest[:i]) {
			t.Errorf("COLUMNS=%d: signature column %q is not a cut start of %q", width, rest, b.Signature)
		}
	}
}

// With no $COLUMNS the table fits the terminal it goes to, and nothing
// else limits it.
func TestTextWidthOfTerminal(t *testing.T) {
	t.Setenv("COLUMNS", "")
	tty := openTerminal(t)
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 100}); err != nil {
		t.Fatal(err)
	}
	if w := textWidth("", tty); w != 100 {
		t.Errorf("a 100-column terminal: width %d", w)
	}
	if w := textWidth("out.txt", tty); w != 0 {
		t.Errorf("-o FILE: width %d, want no limit", w)
	}
	t.Setenv("COLUMNS", "90")
	if w := textWidth("", tty); w != 90 {
		t.Errorf("COLUMNS=90 on a 100-column terminal: width %d", w)
	}
}
