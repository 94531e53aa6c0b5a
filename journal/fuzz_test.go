package journal

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// FuzzJournal reads whatever the fuzzer makes of journal files: no
// panic, no hang, and no read past what the caller bounds.
func FuzzJournal(f *testing.F) {
	long := "COREDUMP=" + repeat("\x7fELF\x00\x00\x00\x01", 300)
	for _, compact := range []bool{true, false} {
		f.Add(craftJournal(compact, []craftField{{data: "MESSAGE=a"}, lz4Field(long), zstdField(long)}, []craftField{{data: "B=c"}}))
	}
	// A file as systemd writes it (its hash tables and arrays made by
	// systemd-journal-remote).
	if path, ok := realJournalSeed(f); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := New(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		n := 0
		for e, err := range j.Entries() {
			if n++; n > 1000 {
				break
			}
			if err != nil {
				continue
			}
			j.Cursor(e)
			fields, _ := j.Fields(e, 256)
			for _, fl := range fields {
				if len(fl.Value) > 256 {
					t.Fatalf("value of %d bytes, max 256", len(fl.Value))
				}
				if r, done, err := fl.Data.Value(); err == nil {
					io.Copy(io.Discard, io.LimitReader(r, 1<<20))
					done()
				}
			}
		}
	})
}

// realJournalSeed writes a journal with systemd-journal-remote, cut to
// its first 64 KiB (the fuzzer mutates the header and first objects).
func realJournalSeed(f *testing.F) (string, bool) {
	testenv.NeedTool(f, testenv.JournalRemote)
	entries := testEntries()[:2]
	for i := range entries {
		for j := range entries[i] {
			if entries[i][j].Name == "COREDUMP" {
				entries[i][j].Value = entries[i][j].Value[:4096]
			}
		}
	}
	path := testenv.WriteJournal(f, f.TempDir(), "seed.journal", nil, entries)
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	// systemd preallocates 8 MiB; the objects end at the tail.
	j, err := New(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		f.Fatal(err)
	}
	end := j.Header.HeaderSize + j.Header.ArenaSize
	if end < uint64(len(b)) {
		b = b[:end]
	}
	os.WriteFile(path, b, 0o644)
	return path, true
}
