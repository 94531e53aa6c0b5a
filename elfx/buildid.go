package elfx

import (
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"io"
)

// maxNoteSize bounds how much of a note segment or section is read when
// looking for the build ID; real ones are a few hundred bytes.
const maxNoteSize = 1 << 16

// ntGNUBuildID is the note type of NT_GNU_BUILD_ID.
const ntGNUBuildID = 3

// readBuildID finds NT_GNU_BUILD_ID in the PT_NOTE segments (present in
// every loadable object, including images read from memory) or, for files
// without program headers such as some debug files, the SHT_NOTE sections.
func readBuildID(o *Object) string {
	for _, p := range o.ef.Progs {
		if p.Type != elf.PT_NOTE {
			continue
		}
		if id := buildIDFromNotes(p.Open(), p.Filesz, o.ef.ByteOrder); id != "" {
			return id
		}
	}
	for _, s := range o.ef.Sections {
		if s.Type != elf.SHT_NOTE || s.Flags&elf.SHF_COMPRESSED != 0 {
			continue
		}
		if id := buildIDFromNotes(s.Open(), s.Size, o.ef.ByteOrder); id != "" {
			return id
		}
	}
	return ""
}

// buildIDFromNotes scans a run of ELF notes (4-byte aligned namesz,
// descsz, type, name, desc) for the GNU build ID.
func buildIDFromNotes(r io.ReadSeeker, size uint64, order binary.ByteOrder) string {
	if size > maxNoteSize {
		size = maxNoteSize
	}
	buf := make([]byte, size)
	n, _ := io.ReadFull(r, buf)
	buf = buf[:n]
	for len(buf) >= 12 {
		namesz := uint64(order.Uint32(buf[0:]))
		descsz := uint64(order.Uint32(buf[4:]))
		typ := order.Uint32(buf[8:])
		buf = buf[12:]
		nameEnd := align4(namesz)
		if nameEnd > uint64(len(buf)) {
			return ""
		}
		name := buf[:namesz]
		buf = buf[nameEnd:]
		descEnd := align4(descsz)
		if descsz > uint64(len(buf)) {
			return ""
		}
		desc := buf[:descsz]
		if typ == ntGNUBuildID && string(name) == "GNU\x00" && descsz > 0 {
			return hex.EncodeToString(desc)
		}
		if descEnd > uint64(len(buf)) {
			return ""
		}
		buf = buf[descEnd:]
	}
	return ""
}

func align4(n uint64) uint64 { return (n + 3) &^ 3 }
