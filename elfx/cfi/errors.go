package cfi

import (
	"errors"
	"fmt"
)

// ErrNoFDE is returned by Table.FDEForPC when no FDE covers the address.
var ErrNoFDE = errors.New("no FDE covers the address")

// FormatError reports malformed call frame information: which section,
// the byte offset in it where the problem was found, and what was wrong.
type FormatError struct {
	Section string // ".eh_frame", ".eh_frame_hdr" or ".debug_frame"
	Off     uint64 // offset in Section
	Msg     string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("cfi: %s+%#x: %s", e.Section, e.Off, e.Msg)
}

func formatErr(section string, off uint64, format string, args ...any) error {
	return &FormatError{Section: section, Off: off, Msg: fmt.Sprintf(format, args...)}
}
