// Package journal reads systemd journal files, the on-disk format that
// journald, systemd-journal-remote and systemd-coredump (Storage=journal)
// write and that journalctl --file and coredumpctl --file read
// (systemd's "Journal File Format"): the header, the chain of entry
// arrays that lists the entries in order, each entry's items and the
// DATA objects that hold its fields, stored as they are or compressed
// with XZ, LZ4 or ZSTD, in the regular or the compact layout.
//
// It reads and never writes. Every offset and size is checked against
// the file before it is used, and nothing is allocated by a size the
// file declares: a damaged or hostile file gives errors (FormatError
// says where), never a panic, and a compressed field is read as a
// stream whose length the caller bounds.
//
// It does not use the hash tables (it looks nothing up by field; callers
// filter the entries they walk), nor check seals (TAG objects).
package journal
