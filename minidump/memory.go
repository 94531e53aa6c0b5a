package minidump

// MemoryRange is a block of the process's memory that the dump holds:
// the Size bytes at Start are at file offset Offset. Avail is how many of
// them the file holds (less than Size when the file was cut short).
type MemoryRange struct {
	Start  uint64
	Size   uint64
	Offset uint64
	Avail  uint64
}

// Bytes returns the bytes of r the file holds.
func (d *Dump) Bytes(r MemoryRange) []byte {
	b, _ := d.data.slice(r.Offset, r.Avail)
	return b
}

// Data is the whole file, for readers that map memory ranges themselves.
func (d *Dump) Data() []byte { return d.data }

// memoryDescriptor is MINIDUMP_MEMORY_DESCRIPTOR: start, then a location.
const memoryDescriptorSize = 16

// rangeAt checks a memory descriptor's location against the file.
func (d *Dump) rangeAt(b []byte) (MemoryRange, error) {
	start, loc := le.Uint64(b), locationAt(b[8:])
	return d.checkedRange(start, uint64(loc.Size), uint64(loc.RVA))
}

// checkedRange builds a MemoryRange whose bytes the file holds in part
// or whole; an error when the file holds none of them or the range wraps
// around the address space.
func (d *Dump) checkedRange(start, size, off uint64) (MemoryRange, error) {
	r := MemoryRange{Start: start, Size: size, Offset: off}
	if start+size < start {
		return r, formatErr(off, "memory at 0x%x of %d bytes wraps around the address space", start, size)
	}
	have := uint64(len(d.data))
	switch {
	case off >= have && size > 0:
		return r, formatErr(off, "memory at 0x%x: its %d bytes lie past the end of the file (%d bytes)", start, size, have)
	case size > have-off:
		r.Avail = have - off
		return r, formatErr(off, "memory at 0x%x: %d of its %d bytes lie past the end of the file", start, size-r.Avail, size)
	}
	r.Avail = size
	return r, nil
}

func (d *Dump) readMemoryList(b []byte, off uint64) error {
	entries, n, err := list(b, off, 4, memoryDescriptorSize)
	for i := 0; i < n; i++ {
		r, rerr := d.rangeAt(entries[i*memoryDescriptorSize:])
		if rerr != nil {
			d.warnf("%v: %v", MemoryListStream, rerr)
		}
		if r.Avail > 0 {
			d.Memory = append(d.Memory, r)
		}
	}
	return err
}

// readMemory64List reads MINIDUMP_MEMORY64_LIST: a 64-bit count, the RVA
// of the first range's bytes, then (start, size) pairs whose bytes follow
// each other from there.
func (d *Dump) readMemory64List(b []byte, off uint64) error {
	if len(b) < 16 {
		return formatErr(off, "%d bytes, want at least 16", len(b))
	}
	count, base := le.Uint64(b), le.Uint64(b[8:])
	fit := uint64(len(b)-16) / 16
	var err error
	if count > fit {
		err = formatErr(off, "list claims %d entries, %d fit in its %d bytes", count, fit, len(b))
		count = fit
	}
	at := base
	for i := uint64(0); i < count; i++ {
		e := b[16+16*i:]
		start, size := le.Uint64(e), le.Uint64(e[8:])
		r, rerr := d.checkedRange(start, size, at)
		if rerr != nil {
			d.warnf("%v: %v", Memory64ListStream, rerr)
		}
		if r.Avail > 0 {
			d.Memory = append(d.Memory, r)
		}
		if r.Avail < size || at+size < at {
			break // the rest of the ranges are past the end of the file
		}
		at += size
	}
	return err
}
