package container

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/coreunwind/coreunwind/journal"
	"github.com/coreunwind/coreunwind/report"
)

// coredumpMessageID is the MESSAGE_ID of systemd-coredump's entries
// (SD_MESSAGE_COREDUMP).
const coredumpMessageID = "fc2e22bc6ee647b6b90729ab34a250b1"

// listJournal returns the coredump entries of the journal file at path:
// those the data hash table lists for systemd-coredump's MESSAGE_ID, as
// journalctl finds them, or, where the table cannot be read, those a
// walk of every entry finds.
func listJournal(path string) ([]*Crash, error) {
	f, err := journal.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries := f.Entries()
	switch d, err := f.Find("MESSAGE_ID=" + coredumpMessageID); {
	case errors.Is(err, journal.ErrNotFound):
		return nil, nil
	case err == nil:
		entries = f.EntriesWith(d)
	}
	var crashes []*Crash
	var broken error
	for e, err := range entries {
		if err != nil {
			// A damaged entry or array: the entries read so far are
			// kept, and the damage said once.
			broken = err
			continue
		}
		c, ok := coredumpEntry(path, f, e)
		if ok {
			crashes = append(crashes, c)
		}
	}
	if broken != nil && len(crashes) == 0 {
		return nil, fmt.Errorf("%s: %w", path, broken)
	}
	if broken != nil {
		crashes = append(crashes, &Crash{Name: path, Err: fmt.Errorf("%s: entries after a damaged one are lost: %w", path, broken)})
	}
	return crashes, nil
}

// coredumpEntry reads entry e; ok is false when it is not a coredump
// entry.
func coredumpEntry(path string, f *journal.File, e *journal.Entry) (c *Crash, ok bool) {
	fields, err := f.Fields(e, maxFieldValue)
	values := make(map[string]string, len(fields))
	var core *journal.Data
	for _, fl := range fields {
		if fl.Name == "COREDUMP" {
			core = fl.Data
			continue
		}
		if _, dup := values[fl.Name]; !dup {
			values[fl.Name] = string(fl.Value)
		}
	}
	if values["MESSAGE_ID"] != coredumpMessageID {
		return nil, false
	}
	cursor := f.Cursor(e)
	c = &Crash{Name: path + ":" + strconv.FormatUint(e.Seqnum, 10), Fields: values}
	c.Time = time.UnixMicro(int64(e.Realtime)).UTC()
	if us, perr := strconv.ParseInt(values["COREDUMP_TIMESTAMP"], 10, 64); perr == nil && us > 0 {
		c.Time = time.UnixMicro(us).UTC()
	}
	unit := values["COREDUMP_UNIT"]
	if unit == "" {
		unit = values["COREDUMP_USER_UNIT"]
	}
	host := values["COREDUMP_HOSTNAME"]
	if host == "" {
		host = values["_HOSTNAME"]
	}
	boot := values["_BOOT_ID"]
	if boot == "" {
		boot = e.BootID.String()
	}
	c.Origin = report.Origin{
		Format:         "journal",
		Path:           path,
		Entry:          &cursor,
		Time:           timeStr(c.Time),
		Executable:     str(values["COREDUMP_EXE"]),
		CommandLine:    str(values["COREDUMP_CMDLINE"]),
		PID:            num(values["COREDUMP_PID"]),
		UID:            num(values["COREDUMP_UID"]),
		Signal:         num(values["COREDUMP_SIGNAL"]),
		Unit:           str(unit),
		Hostname:       str(host),
		BootID:         str(boot),
		Package:        str(values["COREDUMP_PACKAGE_NAME"]),
		PackageVersion: str(values["COREDUMP_PACKAGE_VERSION"]),
		Reason:         str(values["MESSAGE"]),
	}
	switch {
	case err != nil:
		c.Err = fmt.Errorf("%s: entry %d: %w", path, e.Seqnum, err)
	case core != nil:
		dataOff := core.Offset
		c.open = func() (io.Reader, func(), error) { return openJournalField(path, dataOff) }
	case values["COREDUMP_FILENAME"] != "":
		c.file, c.Err = coreFileBeside(path, values["COREDUMP_FILENAME"])
	default:
		c.Err = fmt.Errorf("%s: entry %d: %w", path, e.Seqnum, errNoCoreStored(values))
	}
	return c, true
}

// errNoCoreStored says why a coredump entry has no core: systemd-coredump
// says so in COREDUMP_TRUNCATED or its message.
func errNoCoreStored(values map[string]string) error {
	if values["COREDUMP_TRUNCATED"] != "" {
		return errors.New("systemd-coredump stored no core (COREDUMP_TRUNCATED: over its size limit)")
	}
	return errors.New("systemd-coredump stored no core (neither a COREDUMP field nor a COREDUMP_FILENAME; Storage=none?)")
}

// openJournalField reopens the journal file and streams the value of
// the DATA object at off.
func openJournalField(path string, off uint64) (io.Reader, func(), error) {
	f, err := journal.Open(path)
	if err != nil {
		return nil, nil, err
	}
	d, err := f.Data(off)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	r, done, err := d.Value()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, func() { done(); f.Close() }, nil
}

// coreFileBeside finds the core file COREDUMP_FILENAME names (a file
// under /var/lib/systemd/coredump, Storage=external): where it says (the
// journal of this machine), else by its name beside the
// journal file or in a "coredump" directory beside it (a journal copied
// from another machine with its cores).
func coreFileBeside(journalPath, name string) (string, error) {
	dir := filepath.Dir(journalPath)
	candidates := []string{name, filepath.Join(dir, filepath.Base(name)), filepath.Join(dir, "coredump", filepath.Base(name))}
	for _, p := range candidates {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("the core file %s is gone (also looked for it beside %s)", name, journalPath)
}
