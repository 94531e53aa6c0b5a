package journal

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/journaltest"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// testEntries are entries like systemd-coredump's: text fields, a large
// binary field that journald compresses and a small one it does not.
func testEntries() [][]testenv.JournalField {
	rng := rand.New(rand.NewSource(1))
	big := make([]byte, 300<<10)
	for i := range big {
		big[i] = "\x00\n\x7fELF"[rng.Intn(6)]
	}
	small := []byte("\x00\x01\n\x02 binary")
	var entries [][]testenv.JournalField
	for i := range 3 {
		e := []testenv.JournalField{
			{Name: "__REALTIME_TIMESTAMP", Value: fmt.Appendf(nil, "%d", 1700000000000000+i)},
			{Name: "__MONOTONIC_TIMESTAMP", Value: fmt.Appendf(nil, "%d", 5000+i)},
			{Name: "_BOOT_ID", Value: []byte("0123456789abcdef0123456789abcdef")},
			{Name: "MESSAGE_ID", Value: []byte("fc2e22bc6ee647b6b90729ab34a250b1")},
			{Name: "MESSAGE", Value: fmt.Appendf(nil, "Process %d (prog) of user 1000 dumped core.", 100+i)},
			{Name: "COREDUMP_PID", Value: fmt.Appendf(nil, "%d", 100+i)},
			{Name: "SMALL", Value: small},
		}
		if i != 1 {
			e = append(e, testenv.JournalField{Name: "COREDUMP", Value: big})
		}
		entries = append(entries, e)
	}
	return entries
}

// exported is one entry as journalctl -o export prints it.
type exported struct {
	cursor string
	fields []string // NAME=value, sorted, without the __ fields
}

// journalctlExport reads a journal file with journalctl.
func journalctlExport(t *testing.T, path string) []exported {
	t.Helper()
	tool := testenv.NeedTool(t, "journalctl")
	out, err := exec.Command(tool, "--file", path, "-o", "export", "--all").Output()
	if err != nil {
		t.Fatalf("journalctl: %v", err)
	}
	var entries []exported
	var cur exported
	r := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			break
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		switch {
		case len(line) == 0:
			slices.Sort(cur.fields)
			entries = append(entries, cur)
			cur = exported{}
			continue
		case !bytes.Contains(line, []byte("=")):
			var n [8]byte
			io.ReadFull(r, n[:])
			v := make([]byte, binary.LittleEndian.Uint64(n[:]))
			io.ReadFull(r, v)
			r.ReadByte()
			cur.fields = append(cur.fields, string(line)+"="+string(v))
			continue
		}
		name, value, _ := strings.Cut(string(line), "=")
		if name == "__CURSOR" {
			cur.cursor = value
		} else if !strings.HasPrefix(name, "__") {
			cur.fields = append(cur.fields, name+"="+value)
		}
	}
	return entries
}

// readAll reads every entry of the file with this package, whole.
func readAll(t *testing.T, path string) []exported {
	t.Helper()
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var entries []exported
	for e, err := range f.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		x := exported{cursor: f.Cursor(e)}
		for _, off := range e.Items {
			d, err := f.Data(off)
			if err != nil {
				t.Fatal(err)
			}
			r, done, err := d.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(r)
			done()
			if err != nil {
				t.Fatalf("field at 0x%x (%s): %v", off, d.Compression, err)
			}
			x.fields = append(x.fields, string(b))
		}
		slices.Sort(x.fields)
		entries = append(entries, x)
	}
	return entries
}

// Files written by systemd-journal-remote, in both layouts, read as
// journalctl reads them: the same entries, cursors and fields, binary
// and zstd-compressed ones included.
func TestMatchesJournalctl(t *testing.T) {
	for _, layout := range []struct {
		name    string
		env     []string
		compact bool
	}{{"compact", nil, true}, {"regular", []string{"SYSTEMD_JOURNAL_COMPACT=0"}, false}} {
		t.Run(layout.name, func(t *testing.T) {
			path := testenv.WriteJournal(t, t.TempDir(), "test.journal", layout.env, testEntries())
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if f.Header.Compact() != layout.compact {
				t.Errorf("compact = %v, want %v", f.Header.Compact(), layout.compact)
			}
			f.Close()
			want := journalctlExport(t, path)
			got := readAll(t, path)
			if len(want) != 3 || len(got) != len(want) {
				t.Fatalf("%d entries, journalctl reads %d (3 written)", len(got), len(want))
			}
			compressed := 0
			for i := range want {
				if got[i].cursor != want[i].cursor {
					t.Errorf("entry %d: cursor %s, journalctl's %s", i, got[i].cursor, want[i].cursor)
				}
				if !slices.Equal(got[i].fields, want[i].fields) {
					t.Errorf("entry %d: fields differ from journalctl's", i)
				}
			}
			// The big field must have been compressed, or the test
			// does not test decompression.
			f, _ = Open(path)
			defer f.Close()
			for e := range f.Entries() {
				for _, off := range e.Items {
					if d, _ := f.Data(off); d != nil && d.Compression != "" {
						compressed++
					}
				}
			}
			if compressed == 0 {
				t.Error("no field is compressed")
			}
		})
	}
}

// xzField compresses data with the xz tool, as journald's XZ fields are
// (an .xz stream).
func xzField(t *testing.T, data string) journaltest.Field {
	tool := testenv.NeedTool(t, "xz")
	cmd := exec.Command(tool, "--format=xz", "--check=none", "-c")
	cmd.Stdin = strings.NewReader(data)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return journaltest.Field{Data: data, Flags: journaltest.CompressedXZ, Store: out}
}

// Fields compressed with each of journald's algorithms, in both
// layouts, read back whole and cut at a bound.
func TestCompressedFields(t *testing.T) {
	long := "COREDUMP=" + repeat("\x7fELF core bytes \x00\x00\x00\x00", 20000)
	for _, compact := range []bool{true, false} {
		fields := []journaltest.Field{{Data: "MESSAGE=plain"}, xzField(t, long), journaltest.LZ4(long), journaltest.ZSTD(long)}
		path := filepath.Join(t.TempDir(), "crafted.journal")
		os.WriteFile(path, journaltest.Build(compact, fields), 0o644)
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for e, err := range f.Entries() {
			if err != nil {
				t.Fatal(err)
			}
			got, err := f.Fields(e, 16)
			if err != nil {
				t.Fatal(err)
			}
			for i, g := range got {
				wantName, wantValue, _ := strings.Cut(fields[i].Data, "=")
				if g.Name != wantName || string(g.Value) != wantValue[:min(16, len(wantValue))] || g.Truncated != (len(wantValue) > 16) {
					t.Errorf("compact=%v field %d (%s): %s=%q truncated %v", compact, i, g.Data.Compression, g.Name, g.Value, g.Truncated)
				}
				r, done, err := g.Data.Value()
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(r)
				done()
				if err != nil || string(b) != wantValue {
					t.Errorf("compact=%v field %d (%s): whole value: %d bytes, %v", compact, i, g.Data.Compression, len(b), err)
				}
			}
		}
		f.Close()
	}
}

// The LZ4 block decoder gives what lz4's own block decoder gives, for
// data of every kind (literal runs, long matches, overlapping matches),
// and refuses a block that decodes past its declared size.
func TestLZ4BlockMatchesLZ4(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	random := make([]byte, 200<<10)
	rng.Read(random)
	for _, data := range []string{"a", repeat("a", 1<<20), string(random), repeat("abcdefgh", 50000) + string(random[:70000]) + repeat("z", 300000)} {
		f := journaltest.LZ4(data)
		l, err := newLZ4Block(io.NewSectionReader(bytes.NewReader(f.Store), 0, int64(len(f.Store))))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(l)
		if err != nil || string(got) != data {
			t.Errorf("%d bytes: decoded %d bytes, %v", len(data), len(got), err)
		}
		// The same block declaring one byte less.
		short := slices.Clone(f.Store)
		binary.LittleEndian.PutUint64(short, uint64(len(data)-1))
		l, _ = newLZ4Block(io.NewSectionReader(bytes.NewReader(short), 0, int64(len(short))))
		if _, err := io.ReadAll(l); !errors.Is(err, errLZ4) {
			t.Errorf("%d bytes declared as %d: %v, want errLZ4", len(data), len(data)-1, err)
		}
	}
}

// A field that decodes to far more than its file holds is read only
// as far as the caller asks, and read whole in bounded memory: 256 MiB
// from one LZ4 sequence of 1 MiB (a match of offset 1).
func TestLZ4BombBounded(t *testing.T) {
	const prefix = "COREDUMP=x"
	block := []byte{byte(len(prefix))<<4 | 15}
	block = append(block, prefix...)
	block = append(block, 1, 0) // offset 1
	const match = 256 << 20
	m := match - 4 - 15
	for ; m >= 255; m -= 255 {
		block = append(block, 255)
	}
	block = append(block, byte(m))
	block = append(block, 0x10, 'y') // the last sequence: one literal
	size := len(prefix) + match + 1
	store := append(binary.LittleEndian.AppendUint64(nil, uint64(size)), block...)
	path := filepath.Join(t.TempDir(), "bomb.journal")
	os.WriteFile(path, journaltest.Build(true, []journaltest.Field{{Data: "COREDUMP=", Flags: journaltest.CompressedLZ4, Store: store}}), 0o644)
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for e := range f.Entries() {
		fields, err := f.Fields(e, 1024)
		if err != nil || len(fields) != 1 || !fields[0].Truncated || len(fields[0].Value) != 1024 {
			t.Fatalf("%v %v", fields, err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r, done, _ := fields[0].Data.Value()
		n, err := io.Copy(io.Discard, r)
		done()
		runtime.ReadMemStats(&after)
		if err != nil || n != int64(size-len("COREDUMP=")) {
			t.Errorf("decoded %d bytes (%v), want %d", n, err, size-len("COREDUMP="))
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
			t.Errorf("decoding allocated %d MiB", alloc>>20)
		}
	}
}

func repeat(s string, n int) string { return strings.Repeat(s, n) }

// Find locates a field through the data hash table, keyed (siphash,
// systemd's default) or not (lookup3), and EntriesWith lists the entries
// that have it: those journalctl lists for the same match.
func TestFindMatchesJournalctl(t *testing.T) {
	for _, layout := range []struct {
		name string
		env  []string
	}{{"keyed-compact", nil}, {"jenkins-regular", []string{"SYSTEMD_JOURNAL_KEYED_HASH=0", "SYSTEMD_JOURNAL_COMPACT=0"}}} {
		t.Run(layout.name, func(t *testing.T) {
			path := testenv.WriteJournal(t, t.TempDir(), "test.journal", layout.env, testEntries())
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if keyed := f.Header.Incompatible&IncompatibleKeyedHash != 0; keyed != (layout.env == nil) {
				t.Fatalf("keyed hash %v: the environment did not choose the hash", keyed)
			}
			for _, field := range []string{"MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1", "COREDUMP_PID=101", "_BOOT_ID=0123456789abcdef0123456789abcdef"} {
				out, err := exec.Command(testenv.NeedTool(t, "journalctl"), "--file", path, field, "-o", "export").Output()
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				for _, line := range strings.Split(string(out), "\n") {
					if c, ok := strings.CutPrefix(line, "__CURSOR="); ok {
						want = append(want, c)
					}
				}
				d, err := f.Find(field)
				if err != nil {
					t.Fatalf("%s: %v", field, err)
				}
				var got []string
				for e, err := range f.EntriesWith(d) {
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, f.Cursor(e))
				}
				if len(want) == 0 || !slices.Equal(got, want) {
					t.Errorf("%s: entries %q, journalctl's %q", field, got, want)
				}
			}
			if _, err := f.Find("MESSAGE_ID=00000000000000000000000000000000"); !errors.Is(err, ErrNotFound) {
				t.Errorf("a field no entry has: %v", err)
			}
		})
	}
}
