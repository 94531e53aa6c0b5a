package container

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/journaltest"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// fuzzCore is a small stand-in for a core: containers do not look into
// it.
var fuzzCore = append([]byte("\x7fELF\x02\x01\x01\x00"), bytes.Repeat([]byte{0, 1, 2, 3}, 2000)...)

// FuzzApport reads whatever the fuzzer makes of .crash files: fields and
// the CoreDump stream, without a panic or an unbounded read.
func FuzzApport(f *testing.F) {
	f.Add(testenv.ApportReport(apportFieldsFor("/usr/bin/prog"), fuzzCore))
	f.Add([]byte("ProblemType: Crash\nCoreDump: base64\n H4sICAAAAAAC/0NvcmVEdW1wAA==\n eJzLSM3JyVcozy/KSQEAGgQEXQ==\nSignal: 11\n"))
	f.Add([]byte("ProblemType: Crash\nProcStatus:\n Pid:\t1\n Uid:\t0\t0\nCoreDump: base64\n !!!\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fields, coreAt, err := apportFields(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, v := range fields {
			if len(v) > maxFieldValue+1 {
				t.Fatalf("field of %d bytes kept", len(v))
			}
		}
		if coreAt < 0 || coreAt > int64(len(data)) {
			return
		}
		lines := &base64Lines{r: bufio.NewReader(bytes.NewReader(data[coreAt:]))}
		io.Copy(io.Discard, io.LimitReader(lines, 1<<20))
	})
}

// FuzzJournalCoredumps lists the coredump entries of whatever the fuzzer
// makes of a journal file and extracts their cores, bounded.
func FuzzJournalCoredumps(f *testing.F) {
	for _, compact := range []bool{true, false} {
		var stored, external []journaltest.Field
		for _, fl := range testenv.CoredumpEntry(1, 10, "/usr/bin/prog", nil) {
			if !strings.HasPrefix(fl.Name, "__") {
				stored = append(stored, journaltest.Field{Data: fl.Name + "=" + string(fl.Value)})
			}
		}
		external = append(external, stored...)
		stored = append(stored, journaltest.ZSTD("COREDUMP="+string(fuzzCore)))
		external = append(external, journaltest.Field{Data: "COREDUMP_FILENAME=/nonexistent/core.x"})
		f.Add(journaltest.Build(compact, stored, external, []journaltest.Field{journaltest.LZ4("COREDUMP=" + string(fuzzCore)), {Data: "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1"}}))
	}
	f.Setenv("COREUNWIND_MAX_CORE_SIZE", "1M")
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "f.journal")
		os.WriteFile(path, data, 0o644)
		crashes, err := List(path)
		if err != nil {
			return
		}
		for i, c := range crashes {
			if i > 20 {
				break
			}
			if p, remove, err := c.Core(dir); err == nil && remove {
				os.Remove(p)
			}
		}
	})
}

// FuzzProblemDir reads ABRT problem directories whose items the fuzzer
// writes (NUL-separated: pid, uid, time, package items, core_backtrace).
func FuzzProblemDir(f *testing.F) {
	f.Add([]byte("4242\x001000\x001764236591\x00bugs\x002.0\x003\x00{\"signal\": 11}"))
	f.Add([]byte("x\x00\x00-1\x00\x00\x00\x00{\"signal\": \"11\"}"))
	names := []string{"pid", "uid", "time", "pkg_name", "pkg_version", "pkg_release", "core_backtrace"}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		items := map[string]string{"analyzer": "abrt-ccpp"}
		for i, v := range bytes.SplitN(data, []byte{0}, len(names)) {
			items[names[i]] = string(v)
		}
		testenv.WriteProblemDir(t, dir, items, fuzzCore)
		crashes, err := List(dir)
		if err != nil || len(crashes) != 1 {
			t.Fatalf("%d crashes, %v", len(crashes), err)
		}
	})
}
