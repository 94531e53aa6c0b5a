package minidump

import (
	"bytes"
	"errors"
	"fmt"
)

// Signature is the header's first four bytes, "MDMP".
const Signature = "MDMP"

// headerVersion is MINIDUMP_VERSION, the low half of Header.Version.
const headerVersion = 0xa793

const (
	headerSize    = 32
	directorySize = 12
	// maxStreams bounds the directory: real dumps have a few dozen.
	maxStreams = 4096
)

// ErrNotMinidump is wrapped by the error Parse returns for input that does
// not start with a minidump header.
var ErrNotMinidump = errors.New("not a minidump")

// IsMinidump reports whether b starts with the minidump signature.
func IsMinidump(b []byte) bool { return bytes.HasPrefix(b, []byte(Signature)) }

// Header is MINIDUMP_HEADER.
type Header struct {
	Version       uint32
	NumStreams    uint32
	DirectoryRVA  uint32
	Checksum      uint32
	TimeDateStamp uint32 // seconds since 1970 when the dump was written
	Flags         uint64
}

// Directory is one MINIDUMP_DIRECTORY entry: a stream's type and where
// its bytes are.
type Directory struct {
	Type StreamType
	Size uint32
	RVA  uint32
}

// Dump is a decoded minidump. Streams the file lacks are nil or empty.
type Dump struct {
	Header    Header
	Streams   []Directory
	Threads   []Thread
	Modules   []Module
	Memory    []MemoryRange // the memory list and the 64-bit memory list, by file order
	Exception *Exception
	System    *SystemInfo
	Linux     LinuxInfo
	Crashpad  *CrashpadInfo
	// Warnings say which streams were damaged and what was kept of them.
	Warnings []string

	data file
}

// Parse decodes the minidump held in data. data is not copied: memory
// ranges name offsets into it. An error means no header or directory;
// damaged streams are warnings, with what could be read of them kept.
func Parse(data []byte) (*Dump, error) {
	f := file(data)
	if !IsMinidump(data) {
		return nil, fmt.Errorf("%w: no %q signature", ErrNotMinidump, Signature)
	}
	h, ok := f.slice(0, headerSize)
	if !ok {
		return nil, fmt.Errorf("%w: %w", ErrNotMinidump, formatErr(0, "header cut short: %d bytes", len(data)))
	}
	d := &Dump{data: f, Header: Header{
		Version: le.Uint32(h[4:]), NumStreams: le.Uint32(h[8:]), DirectoryRVA: le.Uint32(h[12:]),
		Checksum: le.Uint32(h[16:]), TimeDateStamp: le.Uint32(h[20:]), Flags: le.Uint64(h[24:]),
	}}
	if d.Header.Version&0xffff != headerVersion {
		return nil, fmt.Errorf("%w: %w", ErrNotMinidump, formatErr(4, "version 0x%x, want 0x%x in the low half", d.Header.Version, headerVersion))
	}
	n := uint64(d.Header.NumStreams)
	if n > maxStreams {
		return nil, formatErr(8, "%d streams", n)
	}
	dir, ok := f.slice(uint64(d.Header.DirectoryRVA), n*directorySize)
	if !ok {
		return nil, formatErr(uint64(d.Header.DirectoryRVA), "stream directory of %d entries past the end of the file (%d bytes)", n, len(data))
	}
	for i := uint64(0); i < n; i++ {
		e := dir[i*directorySize:]
		d.Streams = append(d.Streams, Directory{Type: StreamType(le.Uint32(e)), Size: le.Uint32(e[4:]), RVA: le.Uint32(e[8:])})
	}
	// System information first: the contexts' layout depends on the CPU.
	d.read(SystemInfoStream, d.readSystemInfo)
	d.read(MemoryListStream, d.readMemoryList)
	d.read(Memory64ListStream, d.readMemory64List)
	d.read(ThreadListStream, d.readThreadList)
	d.read(ModuleListStream, d.readModuleList)
	d.read(ExceptionStream, d.readException)
	d.readLinux()
	d.read(CrashpadInfoStream, d.readCrashpadInfo)
	return d, nil
}

// read decodes the first stream of type t with decode; a damaged stream
// is a warning. A second stream of the same type is ignored, as
// rust-minidump and Breakpad's processor do.
func (d *Dump) read(t StreamType, decode func(b []byte, off uint64) error) {
	e := d.stream(t)
	if e == nil {
		return
	}
	b, err := d.data.bytes(location{Size: e.Size, RVA: e.RVA})
	if err != nil {
		d.warnf("%v: %v", t, err)
		return
	}
	if err := decode(b, uint64(e.RVA)); err != nil {
		d.warnf("%v: %v", t, err)
	}
}

// stream returns the first directory entry of type t, nil if none.
func (d *Dump) stream(t StreamType) *Directory {
	for i := range d.Streams {
		if d.Streams[i].Type == t {
			return &d.Streams[i]
		}
	}
	return nil
}

// StreamBytes returns the bytes of the first stream of type t, nil when
// there is none or it lies past the end of the file.
func (d *Dump) StreamBytes(t StreamType) []byte {
	e := d.stream(t)
	if e == nil {
		return nil
	}
	b, _ := d.data.bytes(location{Size: e.Size, RVA: e.RVA})
	return b
}

func (d *Dump) warnf(format string, args ...any) {
	d.Warnings = append(d.Warnings, fmt.Sprintf(format, args...))
}
