package report

import (
	"bufio"
	"fmt"
)

// Origin is the crash report a core came in when it did not come as a
// core file of its own: an entry of a systemd journal file
// (systemd-coredump), an apport .crash file or an ABRT problem
// directory, with the facts that report records besides the core. Each
// fact is nil when the report does not record it. Core.Origin is nil for
// a core file.
type Origin struct {
	// Format is "journal", "apport" or "abrt".
	Format string `json:"format"`
	// Path is the journal file, the .crash file or the problem
	// directory.
	Path string `json:"path"`
	// Entry names the crash within Path: a journal entry's cursor
	// (journalctl --cursor takes it); nil for the other formats.
	Entry *string `json:"entry"`
	// Time is when the crash was recorded, RFC 3339 in UTC.
	Time        *string `json:"time"`
	Executable  *string `json:"executable"`
	CommandLine *string `json:"command_line"`
	PID         *int    `json:"pid"`
	UID         *int    `json:"uid"`
	Signal      *int    `json:"signal"` // the signal number the report records
	// Unit is the systemd unit the process ran in (system or user
	// unit).
	Unit     *string `json:"unit"`
	Hostname *string `json:"hostname"`
	BootID   *string `json:"boot_id"`
	// Package and PackageVersion name the package that owns the
	// executable.
	Package        *string `json:"package"`
	PackageVersion *string `json:"package_version"`
	// Reason is the reporter's one-line account of the crash (ABRT's
	// reason, apport's Title, the journal's MESSAGE).
	Reason *string `json:"reason"`
}

// writeOrigin writes the text header's lines about the crash report a
// core came in: where it is, then each fact it records.
func writeOrigin(w *bufio.Writer, o *Origin) {
	if o == nil {
		return
	}
	fmt.Fprintf(w, "from:        %s %s\n", o.Format, Printable(o.Path))
	line := func(label string, v *string) {
		if v != nil {
			fmt.Fprintf(w, "  %-15s%s\n", label+":", Printable(*v))
		}
	}
	num := func(label string, v *int) {
		if v != nil {
			fmt.Fprintf(w, "  %-15s%d\n", label+":", *v)
		}
	}
	line("entry", o.Entry)
	line("time", o.Time)
	line("executable", o.Executable)
	line("command", o.CommandLine)
	num("pid", o.PID)
	num("uid", o.UID)
	num("signal", o.Signal)
	line("unit", o.Unit)
	line("hostname", o.Hostname)
	line("boot id", o.BootID)
	if o.Package != nil {
		pkg := *o.Package
		if o.PackageVersion != nil {
			pkg += " " + *o.PackageVersion
		}
		line("package", &pkg)
	}
	line("reason", o.Reason)
}
