package minidump

import "fmt"

// FormatError reports malformed minidump data: where in the file and what
// was expected (after debug/elf.FormatError).
type FormatError struct {
	Off uint64 // file offset of the offending structure
	Msg string // what is wrong
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("minidump: %s at offset 0x%x", e.Msg, e.Off)
}

func formatErr(off uint64, format string, args ...any) error {
	return &FormatError{Off: off, Msg: fmt.Sprintf(format, args...)}
}
