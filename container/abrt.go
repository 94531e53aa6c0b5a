package container

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/coreunwind/coreunwind/report"
)

// An ABRT problem directory (abrt-hook-ccpp, libreport's problem data)
// holds one file per item: coredump (the core, as the kernel wrote it),
// executable, cmdline, pid, uid, reason, time (seconds since the epoch),
// package (NAME-VERSION-RELEASE) with pkg_name, pkg_version and
// pkg_release, hostname, and core_backtrace (JSON with the signal),
// among others.

// problemDirMarks are the items that tell a problem directory from any
// directory that holds a file named coredump.
var problemDirMarks = []string{"analyzer", "type", "reason", "executable"}

// IsProblemDir says whether dir is an ABRT problem directory: a
// coredump file beside one of the items ABRT always writes.
func IsProblemDir(dir string) bool {
	if coreFile(dir) == "" {
		return false
	}
	for _, m := range problemDirMarks {
		if fi, err := os.Stat(filepath.Join(dir, m)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// coreFile returns the problem directory's core file: coredump, or a
// compressed copy (coredump.xz, .zst, .lz4, .gz), "" when none.
func coreFile(dir string) string {
	for _, name := range []string{"coredump", "coredump.zst", "coredump.xz", "coredump.lz4", "coredump.gz"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// readProblemDir reads the items of the problem directory dir.
func readProblemDir(dir string) (*Crash, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fields := map[string]string{}
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), "coredump") {
			continue
		}
		v, err := readItem(filepath.Join(dir, e.Name()))
		if err == nil {
			fields[e.Name()] = v
		}
	}
	c := &Crash{Name: dir, Fields: fields, file: coreFile(dir)}
	if c.file == "" {
		c.Err = fmt.Errorf("%s: the problem directory has no coredump", dir)
	}
	if secs, err := strconv.ParseInt(strings.TrimSpace(fields["time"]), 10, 64); err == nil && secs > 0 {
		c.Time = time.Unix(secs, 0).UTC()
	}
	pkg, version := strings.TrimSpace(fields["pkg_name"]), strings.TrimSpace(fields["pkg_version"])
	if pkg != "" && version != "" && fields["pkg_release"] != "" {
		version += "-" + strings.TrimSpace(fields["pkg_release"])
	}
	if pkg == "" {
		pkg = strings.TrimSpace(fields["package"]) // NAME-VERSION-RELEASE as one word
	}
	c.Origin = report.Origin{
		Format:         "abrt",
		Path:           dir,
		Time:           timeStr(c.Time),
		Executable:     str(strings.TrimSpace(fields["executable"])),
		CommandLine:    str(strings.TrimSpace(fields["cmdline"])),
		PID:            num(fields["pid"]),
		UID:            num(fields["uid"]),
		Signal:         backtraceSignal(fields["core_backtrace"]),
		Hostname:       str(strings.TrimSpace(fields["hostname"])),
		Package:        str(pkg),
		PackageVersion: str(version),
		Reason:         str(strings.TrimSpace(fields["reason"])),
	}
	if s := num(fields["signal"]); s != nil {
		c.Origin.Signal = s
	}
	return c, nil
}

// readItem reads one item, cut at maxFieldValue bytes.
func readItem(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFieldValue))
	return string(b), err
}

// backtraceSignal reads the signal from a core_backtrace item
// (satyr's JSON: {"signal": 11, ...}).
func backtraceSignal(text string) *int {
	var bt struct {
		Signal *int `json:"signal"`
	}
	if text == "" || json.Unmarshal([]byte(text), &bt) != nil {
		return nil
	}
	return bt.Signal
}
