package corefile

import "fmt"

// FormatError reports malformed core data: where in the file (or in which
// note) and what was expected. It follows debug/elf.FormatError.
type FormatError struct {
	Off uint64 // file offset of the offending structure
	Msg string // what is wrong
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("corefile: %s at offset 0x%x", e.Msg, e.Off)
}

func formatErr(off uint64, format string, args ...any) error {
	return &FormatError{Off: off, Msg: fmt.Sprintf(format, args...)}
}
