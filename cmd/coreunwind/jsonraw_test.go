package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/report"
)

const ledgerCC = `
#include <cstdlib>
template <class T> struct Ledger {
	T total;
	__attribute__((noinline)) void post(T v) { total += v; if (total > 2) abort(); }
};
__attribute__((noinline)) void settle(Ledger<long> &l) { l.post(3); }
int main() { Ledger<long> l{0}; settle(l); return 0; }
`

// The JSON reports keep C++'s '<', '>' and '&' as they are, so that
// grep finds Ledger<long int> and R&D <team> in them; they decode to
// the same names.
func TestJSONKeepsAngleBrackets(t *testing.T) {
	// The triage summary has no template arguments (signatures drop
	// them), but it names the core, and so does every report.
	dir := filepath.Join(t.TempDir(), "R&D <team>")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "ledger.cc")
	if err := os.WriteFile(src, []byte(ledgerCC), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "ledger")
	testenv.Build(t, "g++", "-g", "-O0", "-o", exe, src)
	core, _ := testenv.Crash(t, exe)
	out := filepath.Join(dir, "triage.json")
	for _, args := range [][]string{
		{"--format", "json", core, exe},
		{"triage", "--format", "json", "--frames", "3", "-o", out, core},
		{"triage", "--format", "jsonl", core},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != exitcode.OK {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		if stdout == "" {
			stdout = string(mustRead(t, out))
		}
		if strings.Contains(stdout, `\u003c`) || strings.Contains(stdout, `\u0026`) || !strings.Contains(stdout, "R&D <team>") ||
			args[0] != "triage" && !strings.Contains(stdout, "Ledger<long int>") {
			t.Errorf("%q: <, > or & escaped, or no R&D <team> or Ledger<long int>:\n%s", args, stdout)
		}
		if args[0] != "triage" {
			var r report.Report
			if err := json.Unmarshal([]byte(stdout), &r); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range r.Threads[0].Frames {
				found = found || f.Function != nil && strings.HasPrefix(*f.Function, "Ledger<long int>::post")
			}
			if !found {
				t.Errorf("no Ledger<long int>::post frame decoded from the JSON")
			}
		}
	}
}
