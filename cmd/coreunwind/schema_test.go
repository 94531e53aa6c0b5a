package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coreunwind/coreunwind/internal/schematest"
	"github.com/coreunwind/coreunwind/internal/testenv"
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
var tablesArchFields = []string{"info_offset", "version", "flags", "length", "records", "descriptor", "padding_records"}

// The JSON the command writes has exactly the shape of the examples in
// the schema documents, the contracts its consumers rely on.
func TestJSONMatchesSchemaDocuments(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "schema", schemaProg, "-O1", "-g")
	core, _ := testenv.Crash(t, exe)

	t.Run("report", func(t *testing.T) {
		code, stdout, stderr := runCLI("--format", "json", core, exe)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		schematest.Check(t, schematest.Example(t, "../../report/report-json.md"), []byte(stdout), schematest.Exact)
	})
	t.Run("tables", func(t *testing.T) {
		code, stdout, stderr := runCLI("tables", "--format", "json", exe)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		// The example shows IA-64 and PA-RISC fields together; an
		// x86_64 entry has neither.
		schematest.Check(t, schematest.Example(t, "../../report/tables-json.md"), []byte(stdout), schematest.Subset, tablesArchFields...)
	})
	t.Run("triage", func(t *testing.T) {
		cores := filepath.Join(dir, "cores")
		os.MkdirAll(cores, 0o755)
		if err := os.Rename(core, filepath.Join(cores, "core.schema")); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(cores, "core.broken"), []byte("not a core\n"), 0o644)
		out := filepath.Join(dir, "triage.json")
		code, _, stderr := runCLI("triage", "--format", "json", "-o", out, "--binaries", dir, cores)
		if code != exitPartial {
			t.Fatalf("exit %d (want %d: one input failed): %s", code, exitPartial, stderr)
		}
		schematest.Check(t, schematest.Example(t, "../../triage/triage-json.md"), mustRead(t, out), schematest.Exact)
	})
}
