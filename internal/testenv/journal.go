package testenv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// JournalRemote is Debian's systemd-journal-remote (package
// systemd-journal-remote): it writes journal files from the journal
// export format, as journald writes them.
const JournalRemote = "/lib/systemd/systemd-journal-remote"

// JournalField is one field of a journal entry, in the order written.
type JournalField struct {
	Name  string
	Value []byte
}

// ExportFormat encodes entries in the journal export format
// (systemd's JOURNAL_EXPORT_FORMATS): a field whose value holds a
// newline or bytes that are not text is written in the binary form (its
// length as le64, then the bytes), as journalctl -o export writes a
// COREDUMP field.
func ExportFormat(entries [][]JournalField) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		for _, f := range e {
			b.WriteString(f.Name)
			if isExportText(f.Value) {
				b.WriteByte('=')
				b.Write(f.Value)
			} else {
				b.WriteByte('\n')
				b.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(f.Value))))
				b.Write(f.Value)
			}
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func isExportText(v []byte) bool {
	for _, c := range v {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// WriteJournal writes entries as the journal file dir/name with
// systemd-journal-remote (compressing large fields with its default,
// zstd); env is added to its environment (SYSTEMD_JOURNAL_COMPACT=0 for
// the regular layout). Each entry needs __REALTIME_TIMESTAMP,
// __MONOTONIC_TIMESTAMP and _BOOT_ID.
func WriteJournal(t testing.TB, dir, name string, env []string, entries [][]JournalField) string {
	t.Helper()
	tool := NeedTool(t, JournalRemote)
	export := filepath.Join(dir, name+".export")
	if err := os.WriteFile(export, ExportFormat(entries), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	cmd := exec.Command(tool, "--output="+out, export)
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, b)
	}
	os.Remove(export)
	return out
}

// CoredumpEntry is entry i of a journal: a systemd-coredump entry with
// the fields systemd's coredump.c writes, for process pid of exe, with
// the core in a binary COREDUMP field (none when core is nil) and extra
// fields.
func CoredumpEntry(i, pid int, exe string, core []byte, extra ...JournalField) []JournalField {
	e := []JournalField{
		{Name: "__REALTIME_TIMESTAMP", Value: fmt.Appendf(nil, "%d", 1764236591000000+i)},
		{Name: "__MONOTONIC_TIMESTAMP", Value: fmt.Appendf(nil, "%d", 9000000+i)},
		{Name: "_BOOT_ID", Value: []byte("0123456789abcdef0123456789abcdef")},
		{Name: "_HOSTNAME", Value: []byte("journalhost")},
		{Name: "MESSAGE_ID", Value: []byte("fc2e22bc6ee647b6b90729ab34a250b1")},
		{Name: "MESSAGE", Value: fmt.Appendf(nil, "Process %d (prog) of user 1000 dumped core.", pid)},
		{Name: "COREDUMP_PID", Value: fmt.Appendf(nil, "%d", pid)},
		{Name: "COREDUMP_UID", Value: []byte("1000")},
		{Name: "COREDUMP_GID", Value: []byte("1000")},
		{Name: "COREDUMP_SIGNAL", Value: []byte("11")},
		{Name: "COREDUMP_SIGNAL_NAME", Value: []byte("SIGSEGV")},
		{Name: "COREDUMP_TIMESTAMP", Value: fmt.Appendf(nil, "%d", 1764236590000000+i)},
		{Name: "COREDUMP_COMM", Value: []byte("prog")},
		{Name: "COREDUMP_EXE", Value: []byte(exe)},
		{Name: "COREDUMP_CMDLINE", Value: []byte(exe + " --serve")},
		{Name: "COREDUMP_UNIT", Value: []byte("prog.service")},
		{Name: "COREDUMP_HOSTNAME", Value: []byte("web1")},
		{Name: "COREDUMP_PACKAGE_NAME", Value: []byte("prog")},
		{Name: "COREDUMP_PACKAGE_VERSION", Value: []byte("1.2-3")},
	}
	e = append(e, extra...)
	if core != nil {
		e = append(e, JournalField{Name: "COREDUMP", Value: core})
	}
	return e
}
