package container

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/coreunwind/coreunwind/corefile"
	"github.com/klauspost/compress/zstd"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/journaltest"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

const crashProg = `
#include <stdlib.h>
__attribute__((noinline)) static int deref(int *p) { return *p; }
int main(int argc, char **argv) { return deref(argc > 5 ? &argc : 0); }
`

// realCore crashes a test program and returns its executable and core
// bytes.
func realCore(t *testing.T) (exe string, core []byte) {
	t.Helper()
	testenv.NeedCores(t)
	dir := t.TempDir()
	exe = testenv.BuildC(t, dir, "prog", crashProg, "-O1", "-g")
	path, _ := testenv.Crash(t, exe)
	core, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	return exe, core
}

// A journal file as systemd-journal-remote writes it, with coredump
// entries among others: every coredump entry is listed, as journalctl
// matches them, with systemd-coredump's fields; a stored core comes out
// byte for byte as stored, a core kept as a file is that file, and an
// entry without a core says why.
func TestJournalCoredumps(t *testing.T) {
	exe, core := realCore(t)
	dir := t.TempDir()
	// systemd-coredump compresses the cores it keeps as files (zstd on
	// Debian 12), and coredumpctl 252 dumps only compressed ones.
	external := filepath.Join(dir, "core.prog.1000.0123456789abcdef0123456789abcdef.303.1764236590000000.zst")
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(external, zw.EncodeAll(core, nil), 0o600)
	other := []testenv.JournalField{
		{Name: "__REALTIME_TIMESTAMP", Value: []byte("1764236590000000")},
		{Name: "__MONOTONIC_TIMESTAMP", Value: []byte("8000000")},
		{Name: "_BOOT_ID", Value: []byte("0123456789abcdef0123456789abcdef")},
		{Name: "MESSAGE", Value: []byte("an ordinary message")},
	}
	entries := [][]testenv.JournalField{
		other,
		testenv.CoredumpEntry(1, 301, exe, core),
		testenv.CoredumpEntry(2, 302, exe, core),
		testenv.CoredumpEntry(3, 303, exe, nil, testenv.JournalField{Name: "COREDUMP_FILENAME", Value: []byte(external)}),
		testenv.CoredumpEntry(4, 304, exe, nil, testenv.JournalField{Name: "COREDUMP_TRUNCATED", Value: []byte("1")}),
	}
	path := testenv.WriteJournal(t, dir, "system.journal", nil, entries)
	if k := Detect(path); k != KindJournal {
		t.Fatalf("Detect = %v", k)
	}
	crashes, err := List(path)
	if err != nil {
		t.Fatal(err)
	}
	// journalctl's count of coredump entries.
	out, err := exec.Command(testenv.NeedTool(t, "journalctl"), "--file", path, "MESSAGE_ID="+coredumpMessageID, "-o", "cat", "--output-fields=COREDUMP_PID").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Fields(string(out)); len(crashes) != len(want) || len(want) != 4 {
		t.Fatalf("%d crashes, journalctl matches %d entries (%q)", len(crashes), len(want), want)
	}
	for i, c := range crashes {
		o := c.Origin
		pid := 301 + i
		if o.Format != "journal" || o.Path != path || o.PID == nil || *o.PID != pid || *o.UID != 1000 || *o.Signal != 11 ||
			*o.Executable != exe || *o.CommandLine != exe+" --serve" || *o.Unit != "prog.service" || *o.Hostname != "web1" ||
			*o.BootID != "0123456789abcdef0123456789abcdef" || *o.Package != "prog" || *o.PackageVersion != "1.2-3" ||
			o.Entry == nil || !strings.HasPrefix(*o.Entry, "s=") || *o.Time != fmt.Sprintf("2025-11-27T09:43:1%dZ", 0) {
			t.Errorf("crash %d: origin %+v", i, o)
		}
		if !c.Matches(fmt.Sprint(pid)) || !c.Matches("prog") || !c.Matches(exe) || !c.Matches(*o.Entry) ||
			!c.Matches("COREDUMP_UNIT=prog.service") || c.Matches("999") || c.Matches("COREDUMP_UNIT=x") {
			t.Errorf("crash %d: matches wrong", i)
		}
		got, remove, err := c.Core(t.TempDir())
		switch i {
		case 0, 1:
			if err != nil || !remove {
				t.Fatalf("crash %d: %v", i, err)
			}
			b, _ := os.ReadFile(got)
			if !bytes.Equal(b, core) {
				t.Errorf("crash %d: extracted %d bytes, not the %d stored", i, len(b), len(core))
			}
		case 2:
			if err != nil || remove || got != external {
				t.Errorf("crash %d: core %q remove=%v %v, want the file %s", i, got, remove, err, external)
			}
		case 3:
			if err == nil || !strings.Contains(err.Error(), "COREDUMP_TRUNCATED") {
				t.Errorf("crash %d: %v, want why no core is stored", i, err)
			}
		}
	}
	checkCoredumpctl(t, path, crashes)
}

// checkCoredumpctl holds the crashes read from the journal file at path
// against systemd's coredumpctl: the same entries, in the same order, with
// the same pid, signal and executable, and each core coredumpctl can dump
// byte for byte the one the crash gives.
func checkCoredumpctl(t *testing.T, path string, crashes []*Crash) {
	t.Helper()
	coredumpctl := testenv.Coredumpctl(t)
	list := exec.Command(coredumpctl, "--file", path, "--no-pager", "--json=short", "list")
	var stderr bytes.Buffer
	list.Stderr = &stderr
	out, err := list.Output()
	if err != nil {
		t.Fatalf("coredumpctl list: %v\n%s", err, stderr.Bytes())
	}
	var listed []struct {
		PID int    `json:"pid"`
		Sig int    `json:"sig"`
		Exe string `json:"exe"`
	}
	if err := json.Unmarshal(out, &listed); err != nil {
		t.Fatalf("coredumpctl list: %v\n%s", err, out)
	}
	if len(listed) != len(crashes) {
		t.Fatalf("coredumpctl lists %d coredumps, coreunwind %d", len(listed), len(crashes))
	}
	for i, l := range listed {
		o := crashes[i].Origin
		if l.PID != *o.PID || l.Sig != *o.Signal || l.Exe != *o.Executable {
			t.Errorf("coredump %d: coredumpctl says pid %d signal %d %s, coreunwind %d %d %s", i, l.PID, l.Sig, l.Exe, *o.PID, *o.Signal, *o.Executable)
		}
		want := filepath.Join(t.TempDir(), "core")
		dump := exec.Command(coredumpctl, "--file", path, "--no-pager", "-o", want, "dump", fmt.Sprint(l.PID))
		dumpOut, dumpErr := dump.CombinedOutput()
		got, remove, err := crashes[i].Core(t.TempDir())
		if (dumpErr == nil) != (err == nil) {
			t.Errorf("coredump %d: coredumpctl dump: %v (%s); coreunwind: %v", i, dumpErr, bytes.TrimSpace(dumpOut), err)
			continue
		}
		if err != nil {
			continue
		}
		if remove {
			defer os.Remove(got)
		}
		a, _ := os.ReadFile(want)
		b := decompressed(t, got)
		if !bytes.Equal(a, b) {
			t.Errorf("coredump %d: coredumpctl dumps %d bytes, coreunwind's core has %d and differs", i, len(a), len(b))
		}
	}
}

// apportFieldsFor are the fields apport writes for a crash of exe.
func apportFieldsFor(exe string) map[string]string {
	return map[string]string{
		"ProblemType":    "Crash",
		"Date":           "Thu Nov 27 09:43:11 2025",
		"ExecutablePath": exe,
		"ProcCmdline":    exe + " --serve",
		"Package":        "prog 1.2-3 [origin: unknown]",
		"Signal":         "11",
		"Title":          "prog crashed with SIGSEGV in deref()",
		"ProcStatus":     "Name:\tprog\nState:\tS (sleeping)\nPid:\t4242\nUid:\t1000\t1000\t1000\t1000",
		"ProcMaps":       "55d0c0000000-55d0c0001000 r--p 00000000 08:01 1 " + exe,
	}
}

// An apport .crash file around a real core: its fields, and the core
// decoded (base64 line by line, gunzipped) byte for byte.
func TestApport(t *testing.T) {
	exe, core := realCore(t)
	path := filepath.Join(t.TempDir(), "_usr_bin_prog.1000.crash")
	os.WriteFile(path, testenv.ApportReport(apportFieldsFor(exe), core), 0o640)
	if k := Detect(path); k != KindApport {
		t.Fatalf("Detect = %v", k)
	}
	crashes, err := List(path)
	if err != nil || len(crashes) != 1 {
		t.Fatalf("%d crashes, %v", len(crashes), err)
	}
	c := crashes[0]
	o := c.Origin
	if o.Format != "apport" || *o.Executable != exe || *o.CommandLine != exe+" --serve" || *o.PID != 4242 || *o.UID != 1000 ||
		*o.Signal != 11 || *o.Package != "prog" || *o.PackageVersion != "1.2-3" || *o.Time != "2025-11-27T09:43:11Z" ||
		*o.Reason != "prog crashed with SIGSEGV in deref()" || o.Entry != nil || o.Hostname != nil {
		t.Errorf("origin %+v", o)
	}
	if c.Fields["ProcMaps"] == "" || !strings.Contains(c.Fields["ProcStatus"], "Pid:\t4242") {
		t.Errorf("multi-line fields: %q", c.Fields)
	}
	got, remove, err := c.Core(t.TempDir())
	if err != nil || !remove {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(got); !bytes.Equal(b, core) {
		t.Errorf("extracted %d bytes, not the core's %d", len(b), len(core))
	}
}

// An ABRT problem directory around a real core: its items, and the
// coredump file itself as the core.
func TestProblemDir(t *testing.T) {
	exe, core := realCore(t)
	dir := filepath.Join(t.TempDir(), "ccpp-2025-11-27-09:43:11.123456-4242")
	testenv.WriteProblemDir(t, dir, map[string]string{
		"analyzer": "abrt-ccpp", "type": "CCpp", "executable": exe, "cmdline": exe + " --serve",
		"pid": "4242", "uid": "1000", "time": "1764236591", "reason": "prog killed by SIGSEGV",
		"hostname": "web2", "pkg_name": "prog", "pkg_version": "1.2", "pkg_release": "3.fc40", "package": "prog-1.2-3.fc40",
		"core_backtrace": `{"signal": 11, "executable": "` + exe + `", "stacktrace": []}`,
	}, core)
	if k := Detect(dir); k != KindABRT {
		t.Fatalf("Detect = %v", k)
	}
	if k := Detect(filepath.Dir(dir)); k != KindNone {
		t.Errorf("its parent: Detect = %v", k)
	}
	crashes, err := List(dir)
	if err != nil || len(crashes) != 1 {
		t.Fatalf("%d crashes, %v", len(crashes), err)
	}
	c := crashes[0]
	o := c.Origin
	if o.Format != "abrt" || *o.Executable != exe || *o.CommandLine != exe+" --serve" || *o.PID != 4242 || *o.UID != 1000 ||
		*o.Signal != 11 || *o.Package != "prog" || *o.PackageVersion != "1.2-3.fc40" || *o.Time != "2025-11-27T09:43:11Z" ||
		*o.Reason != "prog killed by SIGSEGV" || *o.Hostname != "web2" {
		t.Errorf("origin %+v", o)
	}
	got, remove, err := c.Core(t.TempDir())
	if err != nil || remove || got != filepath.Join(dir, "coredump") {
		t.Errorf("core %q remove=%v %v", got, remove, err)
	}
}

// A core inside a container is bounded as a compressed core is: a
// CoreDump that inflates past COREUNWIND_MAX_CORE_SIZE, or a journal
// COREDUMP field that does, is refused, not written out.
func TestContainerBombsBounded(t *testing.T) {
	t.Setenv("COREUNWIND_MAX_CORE_SIZE", "1M")
	// 64 MiB of zeros behind an ELF ident that is not a core's header:
	// no extent to stop at, only the limit.
	bomb := make([]byte, 64<<20)
	copy(bomb, "\x7fELF")
	dir := t.TempDir()
	crashFile := filepath.Join(dir, "bomb.crash")
	os.WriteFile(crashFile, testenv.ApportReport(map[string]string{"ProblemType": "Crash"}, bomb), 0o644)
	if fi, _ := os.Stat(crashFile); fi.Size() > 1<<20 {
		t.Fatalf("the .crash file is %d bytes: not a bomb", fi.Size())
	}
	entry := testenv.CoredumpEntry(1, 1, "/bin/bomb", bomb)
	journalFile := testenv.WriteJournal(t, dir, "bomb.journal", nil, [][]testenv.JournalField{entry})
	for _, p := range []string{crashFile, journalFile} {
		crashes, err := List(p)
		if err != nil || len(crashes) != 1 {
			t.Fatalf("%s: %d crashes, %v", p, len(crashes), err)
		}
		out := t.TempDir()
		if _, _, err := crashes[0].Core(out); err == nil || !strings.Contains(err.Error(), "too large") {
			t.Errorf("%s: %v, want too large", p, err)
		}
		if left, _ := os.ReadDir(out); len(left) != 0 {
			t.Errorf("%s: left %d files", p, len(left))
		}
	}
}

// A journal whose data hash table cannot be read (here: none) is walked
// entry by entry: its coredump entries are still found.
func TestJournalWithoutHashTable(t *testing.T) {
	var fields []journaltest.Field
	for _, fl := range testenv.CoredumpEntry(1, 77, "/usr/bin/prog", nil) {
		if !strings.HasPrefix(fl.Name, "__") {
			fields = append(fields, journaltest.Field{Data: fl.Name + "=" + string(fl.Value)})
		}
	}
	fields = append(fields, journaltest.LZ4("COREDUMP="+string(fuzzCore)))
	path := filepath.Join(t.TempDir(), "nohash.journal")
	os.WriteFile(path, journaltest.Build(false, []journaltest.Field{{Data: "MESSAGE=other"}}, fields), 0o644)
	crashes, err := List(path)
	if err != nil || len(crashes) != 1 || crashes[0].Origin.PID == nil || *crashes[0].Origin.PID != 77 {
		t.Fatalf("%v %v", crashes, err)
	}
	core, remove, err := crashes[0].Core(t.TempDir())
	if err != nil || !remove {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(core); !bytes.Equal(b, fuzzCore) {
		t.Errorf("core of %d bytes, want the %d stored", len(b), len(fuzzCore))
	}
}

// decompressed is the content of the core file at path, decompressed
// when it is compressed (as coreunwind reads it).
func decompressed(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, _, done, err := corefile.NewDecompressor(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer done()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}
