package corefile

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/coreunwind/coreunwind/minidump"
	"golang.org/x/sys/unix"

	"github.com/coreunwind/coreunwind/internal/regfile"
)

// What a batch (triage) needs to know about a compressed or archived core
// before opening it: is this file a core at all, how is it compressed,
// and what does a systemd-coredump file name say about it. Open itself
// decompresses transparently (decompress.go); the functions here serve
// callers that hold a stream rather than a file (a tar member) or want to
// tell cores from executables without opening them.

// Compression returns how data that starts with head is compressed:
// "zstd", "xz", "gzip", "lz4" (frame or legacy format), or "" for none of
// them. Detection is by magic bytes, never by file name.
func Compression(head []byte) string { return compressionKind(head) }

// Kind is what Sniff found a file to be.
type Kind int

const (
	KindOther  Kind = iota // neither ELF nor a compressed ELF file
	KindCore               // an ELF core (ET_CORE) or a minidump
	KindELF                // an ELF file that is not a core: an executable, library, object
	KindBroken             // compressed data that does not decompress to an ELF header
)

func (k Kind) String() string {
	switch k {
	case KindCore:
		return "core"
	case KindELF:
		return "elf"
	case KindBroken:
		return "broken"
	}
	return "other"
}

// Sniffed is what the first bytes of a file say.
type Sniffed struct {
	Kind        Kind
	Compression string // "" when not compressed
	Err         error  // why a compressed file is KindBroken
}

// elfIdentSize is what Sniff needs of an ELF file: e_ident and e_type.
const elfIdentSize = 18

// Sniff reads the start of r and says whether it is a core (an ELF core
// or a minidump), possibly compressed. Compressed data is decompressed
// only as far as the ELF header (a few hundred bytes of a stream), so
// sniffing a directory of large compressed cores is cheap. An error is returned only when r cannot
// be read; undecodable compressed data is KindBroken with Err set.
func Sniff(r io.Reader) (Sniffed, error) {
	br := bufio.NewReaderSize(r, 64)
	head, err := br.Peek(elfIdentSize)
	if err != nil && !errors.Is(err, io.EOF) {
		return Sniffed{}, err
	}
	if kind := compressionKind(head); kind != "" {
		s := Sniffed{Compression: kind}
		d, done, err := decompressor(kind, br, streamSize(r))
		if err != nil {
			s.Kind, s.Err = KindBroken, fmt.Errorf("%s: %w", kind, err)
			return s, nil
		}
		defer done()
		inner := make([]byte, elfIdentSize)
		n, err := io.ReadFull(d, inner)
		if n < elfIdentSize {
			if err == nil || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				err = fmt.Errorf("decompresses to %d bytes, too short for an ELF header", n)
			}
			s.Kind, s.Err = KindBroken, fmt.Errorf("%s: %w", kind, err)
			return s, nil
		}
		s.Kind = elfKind(inner)
		if minidump.IsMinidump(inner) {
			// A minidump (a crash reporter's upload, kept compressed
			// as cores are): decompressing it is bounded by the
			// limit alone, as any stream that is no ELF file.
			s.Kind = KindCore
		}
		if s.Kind == KindOther {
			s.Kind, s.Err = KindBroken, fmt.Errorf("%s: %w: decompressed data has no ELF header", kind, ErrNotCore)
		}
		return s, nil
	}
	if minidump.IsMinidump(head) {
		return Sniffed{Kind: KindCore}, nil
	}
	return Sniffed{Kind: elfKind(head)}, nil
}

// SniffFile is Sniff on the file at path. It reads through a plain
// descriptor: an os.File's poller setup (four fcntl and an epoll_ctl)
// cost more than the read itself, for every file of a triaged directory.
func SniffFile(path string) (Sniffed, error) {
	fd, _, err := regfile.OpenFd(path, 0)
	if err != nil {
		return Sniffed{}, err
	}
	defer unix.Close(fd)
	return Sniff(fdReader{fd, path})
}

// fdReader reads a descriptor as os.File would, without its poller.
type fdReader struct {
	fd   int
	path string
}

func (r fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(r.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, &os.PathError{Op: "read", Path: r.path, Err: err}
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// elfKind tells cores from other ELF files by e_type, in the byte order
// e_ident gives (big-endian HP-UX cores included).
func elfKind(b []byte) Kind {
	if len(b) < elfIdentSize || !isELF(b) {
		return KindOther
	}
	var order binary.ByteOrder = binary.LittleEndian
	if elf.Data(b[elf.EI_DATA]) == elf.ELFDATA2MSB {
		order = binary.BigEndian
	}
	if elf.Type(order.Uint16(b[16:18])) == elf.ET_CORE {
		return KindCore
	}
	return KindELF
}

// NewDecompressor returns a reader of r's content, decompressed when its
// magic bytes say it is zstd, xz, gzip or lz4 (kind names which; "" when
// it is not compressed and rd reads r as is). done releases the decoder.
func NewDecompressor(r io.Reader) (rd io.Reader, kind string, done func(), err error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(8)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, "", nil, err
	}
	if kind = compressionKind(head); kind == "" {
		return br, "", func() {}, nil
	}
	d, done, err := decompressor(kind, br, streamSize(r))
	if err != nil {
		return nil, kind, nil, fmt.Errorf("%s: %w", kind, err)
	}
	return d, kind, done, nil
}

// DecompressTo copies the (possibly compressed) stream r into w,
// decompressing it when its magic bytes say so and leaving holes for
// all-zero 4 KiB blocks, so a core extracted from an archive takes the
// disk space of its non-zero pages. It returns the compression found (""
// for none) and the number of bytes written. An ELF file is written up
// to its end as its headers give it (what follows is dropped: see
// copyCore); a stream that declares, or runs to, more than MaxCoreSize
// bytes is an error (a decompression bomb).
func DecompressTo(w *os.File, r io.Reader) (kind string, size int64, err error) {
	limit, err := MaxCoreSize()
	if err != nil {
		return "", 0, err
	}
	src, kind, done, err := NewDecompressor(r)
	if err != nil {
		return kind, 0, err
	}
	defer done()
	size, _, err = copyCore(w, src, limit)
	if err != nil {
		if kind != "" && !errors.Is(err, errTooLarge) {
			err = fmt.Errorf("%s: decompressing: %w", kind, err)
		}
		return kind, size, err
	}
	// A trailing hole is not written, and what was written past the
	// end is cut: the size must be set.
	if err := w.Truncate(size); err != nil {
		return kind, size, err
	}
	return kind, size, nil
}

// SystemdName is what systemd-coredump encodes in a core's file name:
// core.COMM.UID.BOOTID.PID.USEC, with an optional .zst/.xz/.lz4 suffix.
type SystemdName struct {
	Comm        string    // the process name, unescaped (systemd writes '.', '/', ' ' as \xNN)
	UID         int       // the process's user id
	BootID      string    // 32 hex digits
	PID         int       // the process id
	Time        time.Time // when the process crashed (UTC)
	Compression string    // from the suffix: "zstd", "xz", "lz4", "" for none
}

// ParseSystemdName parses a systemd-coredump file name (a base name, not
// a path). ok is false for any other name.
func ParseSystemdName(name string) (n SystemdName, ok bool) {
	for suffix, kind := range map[string]string{".zst": "zstd", ".xz": "xz", ".lz4": "lz4", ".gz": "gzip"} {
		if strings.HasSuffix(name, suffix) {
			name, n.Compression = strings.TrimSuffix(name, suffix), kind
			break
		}
	}
	if !strings.HasPrefix(name, "core.") {
		return SystemdName{}, false
	}
	parts := strings.Split(name[len("core."):], ".")
	if len(parts) < 5 {
		return SystemdName{}, false
	}
	// COMM is escaped by systemd and has no dots, but be lenient with
	// hand-made names: everything before the last four fields is COMM.
	k := len(parts) - 4
	uid, err1 := strconv.Atoi(parts[k])
	pid, err2 := strconv.Atoi(parts[k+2])
	usec, err3 := strconv.ParseInt(parts[k+3], 10, 64)
	boot := parts[k+1]
	if err1 != nil || err2 != nil || err3 != nil || uid < 0 || pid <= 0 || usec < 0 || !isHexID(boot) {
		return SystemdName{}, false
	}
	n.Comm = unescapeSystemd(strings.Join(parts[:k], "."))
	n.UID, n.PID, n.BootID = uid, pid, boot
	n.Time = time.UnixMicro(usec).UTC()
	return n, true
}

func isHexID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// unescapeSystemd undoes systemd's xescape: \xNN for bytes it escapes.
func unescapeSystemd(s string) string {
	if !strings.Contains(s, `\x`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] == 'x' {
			if v, err := strconv.ParseUint(s[i+2:i+4], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
