package minidump

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// record is one structure minidump_dump prints: its heading
// ("MDRawThread") and its "key = value" lines.
type record struct {
	kind   string
	fields map[string]string
}

// minidumpDump runs Breakpad's minidump_dump on path and returns the
// structures it prints, in order.
func minidumpDump(t *testing.T, path string) []record {
	t.Helper()
	bp := testenv.Breakpad(t)
	// minidump_dump exits 1 when a stream it looks for is missing (the
	// thread names, which Linux dumps lack) after printing everything.
	out, err := exec.Command(bp.Dump, path).Output()
	if err != nil && !strings.Contains(string(out), "MDRawHeader") {
		t.Fatalf("minidump_dump %s: %v", path, err)
	}
	var recs []record
	for _, line := range strings.Split(string(out), "\n") {
		if line != "" && !strings.HasPrefix(line, " ") && !strings.Contains(line, "=") {
			recs = append(recs, record{kind: strings.TrimSpace(line), fields: map[string]string{}})
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && len(recs) > 0 {
			recs[len(recs)-1].fields[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return recs
}

func num(t *testing.T, s string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), map[bool]int{true: 16, false: 10}[strings.HasPrefix(s, "0x")], 64)
	if err != nil {
		t.Fatalf("minidump_dump printed %q: %v", s, err)
	}
	return v
}

// TestParseAgainstMinidumpDump decodes a real minidump (core2md's, from a
// kernel core of e2e's mdcrash.c) and compares every thread, context,
// module, memory range and the exception with what Breakpad's own
// minidump_dump prints for the same file.
func TestParseAgainstMinidumpDump(t *testing.T) {
	const path = "testdata/core2md-x86_64.dmp"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) > 0 {
		t.Errorf("warnings: %q", d.Warnings)
	}
	var threads, modules, regions, contexts []record
	var exc *record
	for _, r := range minidumpDump(t, path) {
		switch r.kind {
		case "MDRawThread":
			threads = append(threads, r)
		case "MDRawModule":
			modules = append(modules, r)
		case "MDMemoryDescriptor":
			regions = append(regions, r)
		case "MDException":
			exc = &r
		case "MDRawContextAMD64":
			contexts = append(contexts, r)
		}
	}
	if len(threads) != len(d.Threads) || len(threads) == 0 {
		t.Fatalf("%d threads, minidump_dump prints %d", len(d.Threads), len(threads))
	}
	for i, r := range threads {
		th := d.Threads[i]
		got := fmt.Sprintf("id %#x stack %#x+%#x rip %#x rsp %#x", th.ID, th.Stack.Start, th.Stack.Size, th.Context.PC(), th.Context.SP())
		want := fmt.Sprintf("id %#x stack %#x+%#x rip %#x rsp %#x", num(t, r.fields["thread_id"]),
			num(t, r.fields["stack.start_of_memory_range"]), num(t, r.fields["stack.memory.data_size"]),
			num(t, contexts[i].fields["rip"]), num(t, contexts[i].fields["rsp"]))
		if got != want {
			t.Errorf("thread %d: %s, minidump_dump: %s", i, got, want)
		}
	}
	if len(modules) != len(d.Modules) || len(modules) == 0 {
		t.Fatalf("%d modules, minidump_dump prints %d", len(d.Modules), len(modules))
	}
	for i, r := range modules {
		m := d.Modules[i]
		got := fmt.Sprintf("%s %#x+%#x code %s debug %s", m.Name, m.Base, m.Size, m.CodeID(), m.DebugID())
		want := fmt.Sprintf("%s %#x+%#x code %s debug %s", r.fields["(code_file)"], num(t, r.fields["base_of_image"]),
			num(t, r.fields["size_of_image"]), r.fields["(code_identifier)"], r.fields["(debug_identifier)"])
		if got != want {
			t.Errorf("module %d: %s, minidump_dump: %s", i, got, want)
		}
	}
	if len(regions) != len(d.Memory) {
		t.Fatalf("%d memory ranges, minidump_dump prints %d", len(d.Memory), len(regions))
	}
	for i, r := range regions {
		m := d.Memory[i]
		if m.Start != num(t, r.fields["start_of_memory_range"]) || m.Size != num(t, r.fields["memory.data_size"]) || m.Offset != num(t, r.fields["memory.rva"]) {
			t.Errorf("memory %d: %+v, minidump_dump: %v", i, m, r.fields)
		}
	}
	if exc == nil || d.Exception == nil {
		t.Fatalf("exception: %+v, minidump_dump: %v", d.Exception, exc)
	}
	e := d.Exception
	if uint64(e.ThreadID) != num(t, exc.fields["thread_id"]) || uint64(e.Code) != num(t, exc.fields["exception_record.exception_code"]) ||
		uint64(e.Flags) != num(t, exc.fields["exception_record.exception_flags"]) || e.Address != num(t, exc.fields["exception_record.exception_address"]) {
		t.Errorf("exception %+v, minidump_dump: %v", e, exc.fields)
	}
	if d.System == nil || d.System.CPU != CPUAMD64 || d.System.Platform != PlatformLinux {
		t.Errorf("system info %+v, want amd64 Linux", d.System)
	}
	if len(d.Linux.Maps) == 0 || len(d.Linux.Auxv) == 0 || len(d.Linux.CmdLine) == 0 || !strings.Contains(d.Linux.Status, "Tgid:") {
		t.Errorf("Linux streams: %d maps, %d auxv, cmdline %q, status %q", len(d.Linux.Maps), len(d.Linux.Auxv), d.Linux.CmdLine, d.Linux.Status)
	}
	if dd := d.Linux.DSODebug; dd == nil || len(dd.Map) == 0 {
		t.Errorf("DSO_DEBUG: %+v", dd)
	}
}
