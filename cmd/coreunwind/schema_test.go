package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/schematest"
	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/report"
)

const schemaProg = `
#include <pthread.h>
#include <unistd.h>
static void *idle(void *a) { pause(); return a; }
__attribute__((noinline)) static int deref(int *p) { return *p; }
int main(int argc, char **argv) {
	pthread_t t;
	pthread_create(&t, 0, idle, 0);
	usleep(100000);
	return deref(argc > 5 ? &argc : 0);
}
`

// tablesArchFields are the tables example's fields that belong to one
// architecture's entries (IA-64 info blocks, PA-RISC descriptors) or are
// there only when needed (padding_records).
var tablesArchFields = []string{"info_offset", "version", "flags", "length", "records", "descriptor", "padding_records",
	"exidx_word", "extab", "cantunwind", "personality_index"}

// The JSON the command writes has exactly the shape of the examples in
// the schema documents, the contracts its consumers rely on.
func TestJSONMatchesSchemaDocuments(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "schema", schemaProg, "-O1", "-g")
	core, _ := testenv.Crash(t, exe)

	t.Run("report", func(t *testing.T) {
		code, stdout, stderr := runCLI("--format", "json", core, exe)
		if code != exitcode.OK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		schematest.Check(t, schematest.Example(t, "../../report/report-json.md"), []byte(stdout), schematest.Exact)
	})
	t.Run("stackwalk-json", func(t *testing.T) {
		code, stdout, stderr := runCLI("--format", "stackwalk-json", core, exe)
		if code != exitcode.OK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		// The registers are the machine's: the example shows one.
		regs := strings.Fields("rax rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15")
		schematest.Check(t, schematest.Example(t, "../../report/stackwalkjson/stackwalk-json.md"), []byte(stdout), schematest.Subset, regs...)
	})
	t.Run("tables", func(t *testing.T) {
		code, stdout, stderr := runCLI("tables", "--format", "json", exe)
		if code != exitcode.OK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		// The example shows IA-64 and PA-RISC fields together; an
		// x86_64 entry has neither.
		schematest.Check(t, schematest.Example(t, "../../report/tables-json.md"), []byte(stdout), schematest.Subset, tablesArchFields...)
	})
	t.Run("tables-arm", func(t *testing.T) {
		// An armhf program's .ARM.exidx: inline, extab and cantunwind
		// entries, all fields documented.
		arm := testenv.BuildCross(t, testenv.ARMHF, dir, "schema-arm", schemaProg, "-O1")
		code, stdout, stderr := runCLI("tables", "--format", "json", arm)
		if code != exitcode.OK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		schematest.Check(t, schematest.Example(t, "../../report/tables-json.md"), []byte(stdout), schematest.Subset, tablesArchFields...)
	})
	t.Run("triage", func(t *testing.T) {
		cores := filepath.Join(dir, "cores")
		os.MkdirAll(cores, 0o755)
		if err := os.Rename(core, filepath.Join(cores, "core.schema")); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(cores, "core.broken"), []byte("not a core\n"), 0o644)
		// A copy cut at the crashing thread's stack pointer: a partial
		// core, so that the "partial" list has an entry to check.
		code, stdout, stderr := runCLI("--format", "json", "--threads", "crashed", filepath.Join(cores, "core.schema"), exe)
		var whole report.Report
		if err := json.Unmarshal([]byte(stdout), &whole); code != exitcode.OK || err != nil {
			t.Fatalf("exit %d: %v\n%s", code, err, stderr)
		}
		sp := crashedThread(t, &whole).Frames[0].SP
		if sp == nil {
			t.Fatal("frame 0 has no sp")
		}
		cut, _ := coreFileOffset(t, filepath.Join(cores, "core.schema"), uint64(*sp))
		writeCut(t, filepath.Join(cores, "core.schema"), filepath.Join(cores, "core.cut"), cut)
		out := filepath.Join(dir, "triage.json")
		code, _, stderr = runCLI("triage", "--format", "json", "-o", out, "--binaries", dir, cores)
		if code != exitcode.Partial {
			t.Fatalf("exit %d (want %d: one input failed, one partial): %s", code, exitcode.Partial, stderr)
		}
		got := mustRead(t, out)
		if !strings.Contains(string(got), `"core.cut"`) && !strings.Contains(string(got), `/core.cut"`) {
			t.Fatalf("the cut core is not in the output:\n%s", got)
		}
		schematest.Check(t, schematest.Example(t, "../../triage/triage-json.md"), got, schematest.Exact)
		var sum struct {
			Partial []struct{ Bucket *string }
		}
		if err := json.Unmarshal(got, &sum); err != nil || len(sum.Partial) != 1 || sum.Partial[0].Bucket == nil {
			t.Errorf("want one partial core, matching the whole core's bucket (frame 0, deref, is the signature): %v\n%s", err, got)
		}
	})
}
