package journal

import (
	"bytes"
	"io"
	"testing"

	"github.com/coreunwind/coreunwind/internal/journaltest"
)

// FuzzJournal reads whatever the fuzzer makes of journal files: no
// panic, no hang, and no read past what the caller bounds. The seeds are
// small hand-made files (one from systemd holds megabytes of hash
// tables, too big to mutate); TestMatchesJournalctl reads systemd's.
func FuzzJournal(f *testing.F) {
	long := "COREDUMP=" + repeat("\x7fELF\x00\x00\x00\x01", 300)
	for _, compact := range []bool{true, false} {
		f.Add(journaltest.Build(compact, []journaltest.Field{{Data: "MESSAGE=a"}, journaltest.LZ4(long), journaltest.ZSTD(long)}, []journaltest.Field{{Data: "B=c"}}))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := New(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if d, err := j.Find("MESSAGE=a"); err == nil {
			n := 0
			for range j.EntriesWith(d) {
				if n++; n > 1000 {
					break
				}
			}
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
