package journal

import (
	"encoding/binary"
	"math/bits"
)

// The hash of a DATA object's payload, which places it in the data hash
// table: SipHash-2-4 keyed by the file's id when the file says
// IncompatibleKeyedHash (systemd 246 and later), else Bob Jenkins'
// lookup3 hashlittle2 as systemd's jenkins_hash64 combines it.

// hash returns the data hash of payload in f.
func (f *File) hash(payload []byte) uint64 {
	if f.Header.Incompatible&IncompatibleKeyedHash != 0 {
		return siphash24(payload, f.Header.FileID)
	}
	c, b := hashlittle2(payload, 0, 0)
	return uint64(c)<<32 | uint64(b)
}

// siphash24 is SipHash-2-4 of b under key.
func siphash24(b []byte, key ID128) uint64 {
	k0, k1 := binary.LittleEndian.Uint64(key[:8]), binary.LittleEndian.Uint64(key[8:])
	v0, v1 := k0^0x736f6d6570736575, k1^0x646f72616e646f6d
	v2, v3 := k0^0x6c7967656e657261, k1^0x7465646279746573
	round := func() {
		v0 += v1
		v1 = bits.RotateLeft64(v1, 13) ^ v0
		v0 = bits.RotateLeft64(v0, 32)
		v2 += v3
		v3 = bits.RotateLeft64(v3, 16) ^ v2
		v0 += v3
		v3 = bits.RotateLeft64(v3, 21) ^ v0
		v2 += v1
		v1 = bits.RotateLeft64(v1, 17) ^ v2
		v2 = bits.RotateLeft64(v2, 32)
	}
	n := len(b)
	for ; len(b) >= 8; b = b[8:] {
		m := binary.LittleEndian.Uint64(b)
		v3 ^= m
		round()
		round()
		v0 ^= m
	}
	var last [8]byte
	copy(last[:], b)
	last[7] = byte(n)
	m := binary.LittleEndian.Uint64(last[:])
	v3 ^= m
	round()
	round()
	v0 ^= m
	v2 ^= 0xff
	for range 4 {
		round()
	}
	return v0 ^ v1 ^ v2 ^ v3
}

// hashlittle2 is lookup3's hashlittle2 (byte by byte, which is what its
// word-at-a-time paths compute on a little-endian machine): it returns
// the primary (c) and secondary (b) hashes from the seeds pc and pb.
func hashlittle2(k []byte, pc, pb uint32) (c, b uint32) {
	a := 0xdeadbeef + uint32(len(k)) + pc
	b, c = a, a+pb
	rot := bits.RotateLeft32
	for len(k) > 12 {
		a += uint32(k[0]) | uint32(k[1])<<8 | uint32(k[2])<<16 | uint32(k[3])<<24
		b += uint32(k[4]) | uint32(k[5])<<8 | uint32(k[6])<<16 | uint32(k[7])<<24
		c += uint32(k[8]) | uint32(k[9])<<8 | uint32(k[10])<<16 | uint32(k[11])<<24
		a -= c
		a ^= rot(c, 4)
		c += b
		b -= a
		b ^= rot(a, 6)
		a += c
		c -= b
		c ^= rot(b, 8)
		b += a
		a -= c
		a ^= rot(c, 16)
		c += b
		b -= a
		b ^= rot(a, 19)
		a += c
		c -= b
		c ^= rot(b, 4)
		b += a
		k = k[12:]
	}
	if len(k) == 0 {
		return c, b
	}
	var tail [12]byte
	copy(tail[:], k)
	a += binary.LittleEndian.Uint32(tail[0:])
	b += binary.LittleEndian.Uint32(tail[4:])
	c += binary.LittleEndian.Uint32(tail[8:])
	c ^= b
	c -= rot(b, 14)
	a ^= c
	a -= rot(c, 11)
	b ^= a
	b -= rot(a, 25)
	c ^= b
	c -= rot(b, 16)
	a ^= c
	a -= rot(c, 4)
	b ^= a
	b -= rot(a, 14)
	c ^= b
	c -= rot(b, 24)
	return c, b
}
