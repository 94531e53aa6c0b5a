package journal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/therootcompany/xz"
)

// Data is a DATA object: one field, "NAME=value", stored as it is or
// compressed.
type Data struct {
	Offset      uint64
	Compression string // "", "xz", "lz4" or "zstd"
	f           *File
	payload     int64 // file offset of the stored payload
	n           int64 // its stored size
}

// Data reads the header of the DATA object at off.
func (f *File) Data(off uint64) (*Data, error) {
	o, err := f.object(off, objectData)
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	start := uint64(dataPayload)
	if f.Header.Compact() {
		start = dataPayloadCompact
	}
	if o.size < start {
		return nil, formatErr(off, "data object of %d bytes", o.size)
	}
	d := &Data{Offset: off, f: f, payload: int64(off + start), n: int64(o.size - start)}
	switch o.flags {
	case 0:
	case objectCompressedXZ:
		d.Compression = "xz"
	case objectCompressedLZ4:
		d.Compression = "lz4"
	case objectCompressedZSTD:
		d.Compression = "zstd"
	default:
		return nil, formatErr(off, "data object flags %#x", o.flags)
	}
	return d, nil
}

// StoredSize is how many bytes the field takes in the file (compressed
// or not).
func (d *Data) StoredSize() int64 { return d.n }

// maxWindow bounds the history a compressed field's decoder keeps, which
// the decoders allocate as the field's header declares it (a 10-byte
// zstd frame can ask for 2 GiB). journald compresses a field in one
// call at the library's default level: zstd's window is then at most
// 2 MiB (ZSTD_compress, level 3), xz's dictionary 8 MiB
// (LZMA_PRESET_DEFAULT). A field that declares more is an error.
const maxWindow = 8 << 20

// Open returns a reader of the field's bytes, "NAME=value",
// decompressed, and a function that releases the decoder. The stream is
// as long as the data decompresses to: the caller bounds how much it
// reads (a compressed field is a decompression bomb's natural home).
func (d *Data) Open() (r io.Reader, done func(), err error) {
	sr := io.NewSectionReader(d.f.r, d.payload, d.n)
	switch d.Compression {
	case "":
		return sr, func() {}, nil
	case "xz":
		x, err := xz.NewReader(bufio.NewReaderSize(sr, 1<<16), maxWindow)
		if err != nil {
			return nil, nil, d.decodeErr(err)
		}
		return errorContext{x, d}, func() {}, nil
	case "zstd":
		z, err := zstd.NewReader(bufio.NewReaderSize(sr, 1<<16), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow))
		if err != nil {
			return nil, nil, d.decodeErr(err)
		}
		return errorContext{z, d}, z.Close, nil
	case "lz4":
		l, err := newLZ4Block(sr)
		if err != nil {
			return nil, nil, d.decodeErr(err)
		}
		return errorContext{l, d}, func() {}, nil
	}
	return nil, nil, formatErr(d.Offset, "compression %q", d.Compression)
}

func (d *Data) decodeErr(err error) error {
	return fmt.Errorf("journal: data object at 0x%x (%s): %w", d.Offset, d.Compression, err)
}

// errorContext says which object a decoder's error is in.
type errorContext struct {
	r io.Reader
	d *Data
}

func (e errorContext) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		err = e.d.decodeErr(err)
	}
	return n, err
}

// maxFieldName bounds a field name: systemd allows 64 bytes.
const maxFieldName = 64

// Field reads the field's name and at most max bytes of its value;
// truncated says the value goes on past them.
func (d *Data) Field(max int) (name string, value []byte, truncated bool, err error) {
	r, done, err := d.Open()
	if err != nil {
		return "", nil, false, err
	}
	defer done()
	var buf bytes.Buffer
	want := int64(maxFieldName+1) + int64(max) + 1
	if _, err := io.Copy(&buf, io.LimitReader(r, want)); err != nil {
		return "", nil, false, err
	}
	b := buf.Bytes()
	eq := bytes.IndexByte(b[:min(len(b), maxFieldName+1)], '=')
	if eq <= 0 {
		return "", nil, false, formatErr(d.Offset, "data object holds no NAME=value field")
	}
	value = b[eq+1:]
	if len(value) > max {
		value, truncated = value[:max], true
	}
	return string(b[:eq]), value, truncated, nil
}

// Value returns a reader of the field's value (what follows "NAME="),
// decompressed; done releases the decoder.
func (d *Data) Value() (r io.Reader, done func(), err error) {
	r, done, err = d.Open()
	if err != nil {
		return nil, nil, err
	}
	br := bufio.NewReaderSize(r, 1<<16)
	if _, err := br.ReadSlice('='); err != nil {
		done()
		if errors.Is(err, bufio.ErrBufferFull) || err == io.EOF {
			err = formatErr(d.Offset, "data object holds no NAME=value field")
		}
		return nil, nil, err
	}
	return br, done, nil
}

// Field is one field of an entry.
type Field struct {
	Name      string
	Value     []byte // at most the max given to Fields
	Truncated bool   // the value goes on past Value
	Data      *Data  // where it is stored, to read it whole (Data.Value)
}

// Fields reads the fields of e, each value up to max bytes. A field
// that cannot be read ends the list with its error.
func (f *File) Fields(e *Entry, max int) ([]Field, error) {
	fields := make([]Field, 0, len(e.Items))
	for _, off := range e.Items {
		d, err := f.Data(off)
		if err != nil {
			return fields, err
		}
		name, value, truncated, err := d.Field(max)
		if err != nil {
			return fields, err
		}
		fields = append(fields, Field{Name: name, Value: value, Truncated: truncated, Data: d})
	}
	return fields, nil
}
