package elfx

import (
	"debug/elf"
	"encoding/binary"
	"errors"
)

// gnuHash is an object's GNU symbol hash table (.gnu.hash, DT_GNU_HASH),
// read in place: what the dynamic linker looks exported names up with.
// A name is found in a few probes instead of a pass over every .dynsym
// entry (node's executable: 75,000). Layout: nbuckets, symoffset,
// bloom_size, bloom_shift (4-byte words), the Bloom filter (bloom_size
// words of the ELF class's size), nbuckets bucket words, then one chain
// word per symbol from symoffset on, whose low bit ends a bucket's chain.
type gnuHash struct {
	order      binary.ByteOrder
	wordBytes  int // Bloom filter word: 4 (ELFCLASS32) or 8
	nbuckets   uint32
	symoffset  uint32
	bloomShift uint32
	bloom      []byte
	buckets    []byte
	chains     []byte
	nsyms      uint32 // entries in the symbol table the chains index
}

var errGNUHash = errors.New("malformed .gnu.hash")

// parseGNUHash checks the table's header and sizes against b and the
// symbol count of the table it indexes: every bucket and chain read
// later stays inside b.
func parseGNUHash(b []byte, order binary.ByteOrder, class elf.Class, nsyms int) (*gnuHash, error) {
	if len(b) < 16 || nsyms < 0 || uint64(nsyms) > 1<<32-1 {
		return nil, errGNUHash
	}
	h := &gnuHash{order: order, wordBytes: 8, nsyms: uint32(nsyms)}
	if class == elf.ELFCLASS32 {
		h.wordBytes = 4
	}
	h.nbuckets, h.symoffset = order.Uint32(b), order.Uint32(b[4:])
	bloomSize, shift := order.Uint32(b[8:]), order.Uint32(b[12:])
	h.bloomShift = shift
	rest := uint64(len(b) - 16)
	bloomBytes := uint64(bloomSize) * uint64(h.wordBytes)
	bucketBytes := uint64(h.nbuckets) * 4
	if h.nbuckets == 0 || bloomSize == 0 || bloomBytes+bucketBytes > rest || h.symoffset > h.nsyms {
		return nil, errGNUHash
	}
	chainBytes := uint64(h.nsyms-h.symoffset) * 4
	if bloomBytes+bucketBytes+chainBytes > rest {
		return nil, errGNUHash
	}
	h.bloom = b[16 : 16+bloomBytes]
	h.buckets = b[16+bloomBytes : 16+bloomBytes+bucketBytes]
	h.chains = b[16+bloomBytes+bucketBytes : 16+bloomBytes+bucketBytes+chainBytes]
	return h, nil
}

// gnuHashOf is the table's hash function (Bernstein's, h*33 + c).
func gnuHashOf(name string) uint32 {
	h := uint32(5381)
	for i := 0; i < len(name); i++ {
		h = h*33 + uint32(name[i])
	}
	return h
}

// candidates calls fn with the index of each symbol of name's hash chain
// whose hash matches, in table order, until fn returns false. The names
// are the caller's to compare. The walk ends with the chain or with the
// symbol table, whichever comes first.
func (h *gnuHash) candidates(name string, fn func(i uint32) bool) {
	hash := gnuHashOf(name)
	bits := uint32(h.wordBytes * 8)
	w := uint64(hash/bits) % uint64(len(h.bloom)/h.wordBytes)
	var word uint64
	if h.wordBytes == 8 {
		word = h.order.Uint64(h.bloom[w*8:])
	} else {
		word = uint64(h.order.Uint32(h.bloom[w*4:]))
	}
	mask := uint64(1)<<(hash%bits) | uint64(1)<<((hash>>(h.bloomShift%32))%bits)
	if word&mask != mask {
		return // the filter says absent
	}
	i := h.order.Uint32(h.buckets[(hash%h.nbuckets)*4:])
	if i < h.symoffset {
		return // empty bucket (0), or an index the chains do not cover
	}
	for ; i < h.nsyms; i++ {
		ch := h.order.Uint32(h.chains[(i-h.symoffset)*4:])
		if ch|1 == hash|1 && !fn(i) {
			return
		}
		if ch&1 != 0 {
			return
		}
	}
}

// dynsymHash returns the .gnu.hash table that indexes o's symbol table
// section tab (the .dynsym), nil when there is none or it is malformed.
func (o *Object) dynsymHash(tab *elf.Section, nsyms int) *gnuHash {
	f := o.ef
	for _, s := range f.Sections {
		if s.Type != elf.SHT_GNU_HASH || int(s.Link) >= len(f.Sections) || f.Sections[s.Link] != tab {
			continue
		}
		b, err := o.sectionData(s)
		if err != nil {
			return nil
		}
		h, err := parseGNUHash(b, f.ByteOrder, f.Class, nsyms)
		if err != nil {
			return nil
		}
		return h
	}
	return nil
}
