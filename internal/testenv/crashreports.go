package testenv

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// ApportReport encodes an apport .crash file as apport's
// problem_report.ProblemReport.write does: ProblemType first, then the
// other fields sorted by key, "Key: value" for one line and continuation
// lines (a leading space) for more; the core as CoreDump: "base64", then
// one line per chunk of a gzip stream (the header naming the key, the
// raw deflate output of each 1 MiB of core as it comes, then what the
// end flushes with the CRC and size), each line base64-encoded on its own.
func ApportReport(fields map[string]string, core []byte) []byte {
	var b bytes.Buffer
	keys := make([]string, 0, len(fields))
	for k := range fields {
		if k != "ProblemType" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if _, ok := fields["ProblemType"]; ok {
		keys = append([]string{"ProblemType"}, keys...)
	}
	for _, k := range keys {
		v := fields[k]
		if strings.Contains(v, "\n") {
			b.WriteString(k + ":\n " + strings.ReplaceAll(v, "\n", "\n ") + "\n")
		} else {
			b.WriteString(k + ": " + v + "\n")
		}
	}
	if core != nil {
		b.WriteString("CoreDump: base64")
		line := func(chunk []byte) {
			b.WriteString("\n " + base64.StdEncoding.EncodeToString(chunk))
		}
		line(append([]byte("\x1f\x8b\x08\x08\x00\x00\x00\x00\x02\xff"), "CoreDump\x00"...))
		var out bytes.Buffer
		w, _ := flate.NewWriter(&out, 9)
		for off := 0; off < len(core); off += 1 << 20 {
			w.Write(core[off:min(off+1<<20, len(core))])
			if out.Len() > 0 {
				line(out.Bytes())
				out.Reset()
			}
		}
		w.Close()
		tail := binary.LittleEndian.AppendUint32(out.Bytes(), crc32.ChecksumIEEE(core))
		line(binary.LittleEndian.AppendUint32(tail, uint32(len(core))))
		b.WriteString("\n")
	}
	return b.Bytes()
}

// WriteProblemDir writes an ABRT problem directory dir: one file per
// item and the core as the file coredump, as abrt-hook-ccpp leaves them.
func WriteProblemDir(t testing.TB, dir string, items map[string]string, core []byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, v := range items {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "coredump"), core, 0o600); err != nil {
		t.Fatal(err)
	}
}
