package container

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/report"
)

// Crash is one crash found in a container.
type Crash struct {
	// Name is what reports call the crash: the .crash file or problem
	// directory, or FILE.journal:SEQNUM for a journal entry.
	Name   string
	Origin report.Origin
	// Fields are the container's text fields as recorded (values cut at
	// maxFieldValue bytes), for Matches.
	Fields map[string]string
	// Time is when the crash was recorded; zero when unknown.
	Time time.Time
	// Err says why the crash has no core to read (a journal entry whose
	// core was not stored, or whose file is gone).
	Err error

	// The core: a file on disk as it is (maybe compressed), or a
	// stream of its bytes to extract.
	file string
	open func() (r io.Reader, done func(), err error)
}

// maxFieldValue bounds each recorded text field kept in memory: the
// facts are short; a field that is not (a process's environment, its
// maps, which systemd-coredump and apport record too) is cut, so that a
// journal of many crashes is listed in bounded memory per crash.
const maxFieldValue = 8 << 10

// Core returns the file holding the crash's core: the core file itself
// when it is on disk (possibly compressed: corefile.Open decompresses
// it), else a copy extracted (decompressed, sparse) into a new file in
// tempDir ("": os.TempDir()), which remove says the caller deletes. The
// copy is bounded as a compressed core is (corefile.DecompressTo).
func (c *Crash) Core(tempDir string) (path string, remove bool, err error) {
	if c.Err != nil {
		return "", false, c.Err
	}
	if c.file != "" {
		return c.file, false, nil
	}
	r, done, err := c.open()
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", c.Name, err)
	}
	defer done()
	out, err := os.CreateTemp(tempDir, "core-*")
	if err != nil {
		return "", false, fmt.Errorf("%s: extracting the core: %w", c.Name, corefile.TempDirError(tempDir, err))
	}
	_, size, err := corefile.DecompressTo(out, r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && size == 0 {
		err = errors.New("the core is empty")
	}
	if err != nil {
		os.Remove(out.Name())
		return "", false, fmt.Errorf("%s: extracting the core: %w", c.Name, err)
	}
	return out.Name(), true, nil
}

// Matches says whether the crash is one that match names, as
// coredumpctl's matches do: a process id, an executable's path (one
// with a '/'), a command name, a journal cursor, or FIELD=VALUE for any
// recorded field.
func (c *Crash) Matches(match string) bool {
	o := &c.Origin
	if strings.HasPrefix(match, "s=") && strings.Contains(match, ";i=") {
		return o.Entry != nil && *o.Entry == match
	}
	if name, value, ok := strings.Cut(match, "="); ok && name != "" {
		v, has := c.Fields[name]
		return has && v == value
	}
	if pid, err := strconv.Atoi(match); err == nil {
		return o.PID != nil && *o.PID == pid
	}
	if strings.Contains(match, "/") {
		return o.Executable != nil && *o.Executable == match
	}
	if comm, ok := c.Fields["COREDUMP_COMM"]; ok && comm == match {
		return true
	}
	return o.Executable != nil && baseName(*o.Executable) == match
}

func baseName(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

// str returns a pointer to s, nil for "".
func str(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// num returns a pointer to the number s holds, nil when it holds none.
func num(s string) *int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return nil
	}
	return &n
}

// timeStr is t as Origin.Time writes it.
func timeStr(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}
