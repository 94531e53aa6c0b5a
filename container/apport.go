package container

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/coreunwind/coreunwind/report"
)

// An apport .crash file (apport's problem_report.ProblemReport.write) is
// RFC 822-like: "Key: value" lines, a value of several lines continued
// on lines that start with a space. A binary value says "base64" and
// goes on in continuation lines, each the base64 of one block of a
// gzip stream (a gzip header, raw deflate blocks, the CRC and size), so
// each line decodes on its own; apport before 0.x wrote zlib instead of
// gzip. CoreDump is such a value: the process's core.

// maxApportLine bounds a line of a .crash file: apport writes a base64
// line per 1 MiB block it compresses (less after compression), text
// lines are short.
const maxApportLine = 4 << 20

// readApport reads the fields of the .crash file at path, all but
// CoreDump's value, which Crash.Core streams.
func readApport(path string) (*Crash, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fields, coreAt, err := apportFields(f)
	if err != nil {
		return nil, fmt.Errorf("%s: apport report: %w", path, err)
	}
	c := &Crash{Name: path, Fields: fields}
	name, version, _ := strings.Cut(strings.TrimSpace(fields["Package"]), " ")
	if version, _, _ = strings.Cut(version, " "); name == "" {
		version = ""
	}
	if t, err := time.Parse("Mon Jan _2 15:04:05 2006", strings.TrimSpace(fields["Date"])); err == nil {
		c.Time = t // apport writes local time without a zone: read as UTC
	}
	c.Origin = report.Origin{
		Format:         "apport",
		Path:           path,
		Time:           timeStr(c.Time),
		Executable:     str(fields["ExecutablePath"]),
		CommandLine:    str(fields["ProcCmdline"]),
		PID:            num(statusField(fields["ProcStatus"], "Pid")),
		UID:            num(firstWord(statusField(fields["ProcStatus"], "Uid"))),
		Signal:         num(fields["Signal"]),
		Unit:           str(fields["_SystemdUnit"]),
		Package:        str(name),
		PackageVersion: str(version),
		Reason:         str(fields["Title"]),
	}
	switch {
	case coreAt < 0:
		c.Err = fmt.Errorf("%s: the apport report has no CoreDump", path)
	default:
		c.open = func() (io.Reader, func(), error) { return openApportCore(path, coreAt) }
	}
	return c, nil
}

// apportFields reads the text fields of an apport report and the offset
// of CoreDump's first continuation line (-1 when it has none). Binary
// values other than CoreDump are skipped.
func apportFields(r io.Reader) (fields map[string]string, coreAt int64, err error) {
	br := bufio.NewReaderSize(r, maxApportLine)
	fields = map[string]string{}
	coreAt = -1
	var off int64
	key, binary := "", false
	var value strings.Builder
	flush := func() {
		if key != "" && !binary {
			fields[key] = value.String()
		}
		key, binary = "", false
		value.Reset()
	}
	for lines := 0; ; lines++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, -1, fmt.Errorf("line at offset %d longer than %d bytes", off, maxApportLine)
		}
		if err != nil && err != io.EOF {
			return nil, -1, err
		}
		if len(line) == 0 && err == io.EOF {
			break
		}
		start := off
		off += int64(len(line))
		text := strings.TrimSuffix(string(bytes.TrimSuffix(line, []byte("\n"))), "\r")
		switch {
		case strings.HasPrefix(text, " "):
			if key == "" {
				return nil, -1, fmt.Errorf("continuation line at offset %d before any field", start)
			}
			if binary {
				if key == "CoreDump" && coreAt < 0 {
					coreAt = start
				}
				break
			}
			if value.Len() < maxFieldValue {
				if value.Len() > 0 {
					value.WriteByte('\n')
				}
				value.WriteString(text[1:min(len(text), 1+maxFieldValue-value.Len())])
			}
		case text == "":
			// apport writes none; tolerated (a trailing newline).
		default:
			flush()
			k, v, ok := strings.Cut(text, ":")
			if !ok || k == "" || strings.ContainsAny(k, " \t") {
				if lines == 0 {
					return nil, -1, errors.New("first line is not a Key: value field")
				}
				return nil, -1, fmt.Errorf("line at offset %d is not a Key: value field", start)
			}
			key = k
			v = strings.TrimPrefix(v, " ")
			binary = v == "base64"
			value.WriteString(v[:min(len(v), maxFieldValue)])
		}
		if err == io.EOF {
			break
		}
	}
	flush()
	return fields, coreAt, nil
}

// statusField returns a field of /proc/PID/status text ("Pid:\t1234").
func statusField(status, name string) string {
	for _, line := range strings.Split(status, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// openApportCore streams the compressed core of the .crash file at path
// from its first continuation line at off: gzip, which
// corefile.DecompressTo recognises, or old apport's zlib, decompressed
// here.
func openApportCore(path string, off int64) (io.Reader, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, err
	}
	lines := &base64Lines{r: bufio.NewReaderSize(f, maxApportLine)}
	br := bufio.NewReader(lines)
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0] == 0x78 && (uint(head[0])<<8|uint(head[1]))%31 == 0 {
		z, err := zlib.NewReader(br)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("CoreDump: zlib: %w", err)
		}
		return z, func() { z.Close(); f.Close() }, nil
	}
	return br, func() { f.Close() }, nil
}

// base64Lines reads a binary value's continuation lines, each decoded on
// its own, up to the first line that does not continue the value.
type base64Lines struct {
	r    *bufio.Reader
	out  []byte
	line int
	err  error
}

func (b *base64Lines) Read(p []byte) (int, error) {
	for len(b.out) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		b.out, b.err = b.next()
	}
	n := copy(p, b.out)
	b.out = b.out[n:]
	return n, nil
}

func (b *base64Lines) next() ([]byte, error) {
	line, err := b.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("CoreDump: line %d longer than %d bytes", b.line+1, maxApportLine)
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	b.line++
	if !bytes.HasPrefix(line, []byte(" ")) {
		return nil, io.EOF // the next field, or the end of the file
	}
	text := bytes.TrimRight(line[1:], "\r\n")
	out := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
	n, derr := base64.StdEncoding.Decode(out, text)
	if derr != nil {
		return nil, fmt.Errorf("CoreDump: line %d: %w", b.line, derr)
	}
	if err == io.EOF {
		return out[:n], io.EOF
	}
	return out[:n], nil
}
