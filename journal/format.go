package journal

// The layout of a journal file, from systemd's journal-def.h.

// signature is the first 8 bytes of every journal file.
const signature = "LPKSHHRH"

// Incompatible flags: a reader that does not know one must refuse the
// file.
const (
	IncompatibleCompressedXZ   = 1 << 0
	IncompatibleCompressedLZ4  = 1 << 1
	IncompatibleKeyedHash      = 1 << 2
	IncompatibleCompressedZSTD = 1 << 3
	IncompatibleCompact        = 1 << 4

	knownIncompatible = IncompatibleCompressedXZ | IncompatibleCompressedLZ4 | IncompatibleKeyedHash |
		IncompatibleCompressedZSTD | IncompatibleCompact
)

// Object types.
const (
	objectData       = 1
	objectField      = 2
	objectEntry      = 3
	objectDataHash   = 4
	objectFieldHash  = 5
	objectEntryArray = 6
	objectTag        = 7
)

// Object flags: how a DATA object's payload is compressed.
const (
	objectCompressedXZ   = 1 << 0
	objectCompressedLZ4  = 1 << 1
	objectCompressedZSTD = 1 << 2
)

// Offsets in the header (struct Header).
const (
	hdrCompatible       = 8
	hdrIncompatible     = 12
	hdrState            = 16
	hdrFileID           = 24
	hdrMachineID        = 40
	hdrSeqnumID         = 72
	hdrHeaderSize       = 88
	hdrArenaSize        = 96
	hdrTailObject       = 136
	hdrNObjects         = 144
	hdrNEntries         = 152
	hdrEntryArrayOffset = 176
	// minHeaderSize is the header of systemd 187, the oldest with every
	// field read here.
	minHeaderSize = 208
)

// Offsets in objects.
const (
	objectHeaderSize = 16 // type, flags, reserved[6], le64 size

	dataPayload        = 64 // after hash, next_hash, next_field, entry, entry_array, n_entries
	dataPayloadCompact = 72 // and le32 tail_entry_array_offset, le32 tail_entry_array_n_entries

	entrySeqnum    = 16
	entryRealtime  = 24
	entryMonotonic = 32
	entryBootID    = 40
	entryXorHash   = 56
	entryItems     = 64

	entryArrayNext  = 16
	entryArrayItems = 24
)

// State values of the header.
const (
	StateOffline  = 0
	StateOnline   = 1
	StateArchived = 2
)
