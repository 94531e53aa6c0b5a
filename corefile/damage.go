package corefile

import "slices"

// Damage: parts of a core that are not what they claim to be. One wrong
// byte in a note header shifts every later note (ParseNotes finds them
// again); what the damaged note held is missing, and the warnings say so
// with DamagedPrefix, which makes the result incomplete.

// isThreadNote reports whether n starts a thread (NT_PRSTATUS).
func isThreadNote(n Note) bool { return n.Type == NTPrstatus && n.Name == "CORE" }

// firstErrorOffset is the smallest offset of the *FormatErrors that
// ParseNotes joined in err (0 if it has none).
func firstErrorOffset(err error) uint64 {
	first := ^uint64(0)
	for _, e := range noteErrors(err) {
		if fe, ok := e.(*FormatError); ok {
			first = min(first, fe.Off)
		}
	}
	if first == ^uint64(0) {
		return 0
	}
	return first
}

// noteErrors splits the error ParseNotes returns into its parts.
func noteErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

// DamagedPrefix starts the warnings about parts of the core that are not
// what they claim to be (a malformed note, a thread's registers cut
// short): what they held is missing from the result, which is therefore
// incomplete even when every thread that was read unwinds.
const DamagedPrefix = "core damaged: "

// damagef adds a warning about damage (DamagedPrefix).
func (c *Core) damagef(format string, args ...any) {
	c.warnf(DamagedPrefix+format, args...)
}

// noteDamage records the malformed notes ParseNotes reported for the
// note segment at file offset segOff (err): a damage warning for each, at
// its file offset, and dumperLost when one comes before the core's first
// NT_PRSTATUS (before holds the notes of earlier segments, found this
// one's).
func (c *Core) noteDamage(err error, segOff uint64, before, found []Note) {
	if err == nil {
		return
	}
	first := firstErrorOffset(err)
	if !slices.ContainsFunc(before, isThreadNote) && !slices.ContainsFunc(found, func(n Note) bool { return isThreadNote(n) && n.Off < first }) {
		c.dumperLost = true
	}
	for _, e := range noteErrors(err) {
		if fe, ok := e.(*FormatError); ok {
			c.damagef("%s at offset %#x: skipped", fe.Msg, segOff+fe.Off)
		} else {
			c.damagef("notes: %v", e)
		}
	}
}
