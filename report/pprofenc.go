package report

import (
	"compress/gzip"
	"fmt"
	"io"
)

// The protocol buffer encoding of a ProfileBuilder's profile: the
// messages and field numbers of pprof's proto/profile.proto, written
// directly (varints, length-delimited submessages, packed repeated
// integers, a string table whose entry 0 is "").

// Field numbers of profile.proto.
const (
	// Profile
	pbSampleType        = 1
	pbSample            = 2
	pbMapping           = 3
	pbLocation          = 4
	pbFunction          = 5
	pbStringTable       = 6
	pbPeriodType        = 11
	pbPeriod            = 12
	pbDefaultSampleType = 14
	// ValueType
	pbValueTypeType = 1
	pbValueTypeUnit = 2
	// Sample
	pbSampleLocationID = 1
	pbSampleValue      = 2
	pbSampleLabel      = 3
	// Label
	pbLabelKey     = 1
	pbLabelStr     = 2
	pbLabelNum     = 3
	pbLabelNumUnit = 4
	// Mapping
	pbMappingID              = 1
	pbMappingStart           = 2
	pbMappingLimit           = 3
	pbMappingOffset          = 4
	pbMappingFilename        = 5
	pbMappingBuildID         = 6
	pbMappingHasFunctions    = 7
	pbMappingHasFilenames    = 8
	pbMappingHasLineNumbers  = 9
	pbMappingHasInlineFrames = 10
	// Location
	pbLocationID        = 1
	pbLocationMappingID = 2
	pbLocationAddress   = 3
	pbLocationLine      = 4
	// Line
	pbLineFunctionID = 1
	pbLineLine       = 2
	pbLineColumn     = 3
	// Function
	pbFunctionID         = 1
	pbFunctionName       = 2
	pbFunctionSystemName = 3
	pbFunctionFilename   = 4
)

// Wire types.
const (
	wireVarint = 0
	wireBytes  = 2
)

// pbuf is a message being encoded.
type pbuf []byte

func (p *pbuf) varint(x uint64) {
	for x >= 0x80 {
		*p = append(*p, byte(x)|0x80)
		x >>= 7
	}
	*p = append(*p, byte(x))
}

func (p *pbuf) key(field, wire int) { p.varint(uint64(field)<<3 | uint64(wire)) }

// uint is a varint field, left out when zero (proto3's default).
func (p *pbuf) uint(field int, x uint64) {
	if x != 0 {
		p.key(field, wireVarint)
		p.varint(x)
	}
}

// int is an int64 field: negative values as their two's complement.
func (p *pbuf) int(field int, x int64) { p.uint(field, uint64(x)) }

func (p *pbuf) bool(field int, v bool) {
	if v {
		p.uint(field, 1)
	}
}

func (p *pbuf) bytes(field int, b []byte) {
	p.key(field, wireBytes)
	p.varint(uint64(len(b)))
	*p = append(*p, b...)
}

// packed is a packed repeated integer field.
func (p *pbuf) packed(field int, xs []uint64) {
	if len(xs) == 0 {
		return
	}
	var body pbuf
	for _, x := range xs {
		body.varint(x)
	}
	p.bytes(field, body)
}

// stringTable is a profile's string table under construction.
type stringTable struct {
	index map[string]int64
	list  []string
}

func newStrings() *stringTable {
	return &stringTable{index: map[string]int64{"": 0}, list: []string{""}}
}

// id is v's index, v made valid UTF-8 first: protobuf strings must be
// (strict proto3 decoders reject the whole profile otherwise).
func (s *stringTable) id(v string) int64 {
	v = validUTF8(v)
	if i, ok := s.index[v]; ok {
		return i
	}
	i := int64(len(s.list))
	s.index[v] = i
	s.list = append(s.list, v)
	return i
}

// encode returns the profile as an uncompressed profile.proto message.
func (b *ProfileBuilder) encode() []byte {
	strs := newStrings()
	var out, msg pbuf
	valueType := func(field int) {
		msg = msg[:0]
		msg.int(pbValueTypeType, strs.id(b.sampleType))
		msg.int(pbValueTypeUnit, strs.id("count"))
		out.bytes(field, msg)
	}
	valueType(pbSampleType)
	var label pbuf
	for i := range b.samples {
		s := &b.samples[i]
		msg = msg[:0]
		msg.packed(pbSampleLocationID, s.locations)
		msg.packed(pbSampleValue, []uint64{1}) // one thread
		for _, l := range s.labels {
			label = label[:0]
			label.int(pbLabelKey, strs.id(l.key))
			if l.numUnit != "" {
				label.int(pbLabelNum, l.num)
				label.int(pbLabelNumUnit, strs.id(l.numUnit))
			} else {
				label.int(pbLabelStr, strs.id(l.str))
			}
			msg.bytes(pbSampleLabel, label)
		}
		out.bytes(pbSample, msg)
	}
	for _, m := range b.mappings {
		msg = msg[:0]
		msg.uint(pbMappingID, m.id)
		msg.uint(pbMappingStart, m.start)
		msg.uint(pbMappingLimit, m.limit)
		msg.uint(pbMappingOffset, m.offset)
		msg.int(pbMappingFilename, strs.id(m.file))
		msg.int(pbMappingBuildID, strs.id(m.buildID))
		// Symbolized here or not at all: pprof must not look for the
		// files on its own machine.
		msg.bool(pbMappingHasFunctions, true)
		msg.bool(pbMappingHasFilenames, true)
		msg.bool(pbMappingHasLineNumbers, true)
		msg.bool(pbMappingHasInlineFrames, true)
		out.bytes(pbMapping, msg)
	}
	var line pbuf
	for _, l := range b.locations {
		msg = msg[:0]
		msg.uint(pbLocationID, l.id)
		msg.uint(pbLocationMappingID, l.mapping)
		msg.uint(pbLocationAddress, l.address)
		for _, ln := range l.lines {
			line = line[:0]
			line.uint(pbLineFunctionID, ln.function)
			line.int(pbLineLine, ln.line)
			line.int(pbLineColumn, ln.column)
			msg.bytes(pbLocationLine, line)
		}
		out.bytes(pbLocation, msg)
	}
	for _, f := range b.functions {
		msg = msg[:0]
		msg.uint(pbFunctionID, f.id)
		name := strs.id(f.name)
		msg.int(pbFunctionName, name)
		msg.int(pbFunctionSystemName, name)
		msg.int(pbFunctionFilename, strs.id(f.file))
		out.bytes(pbFunction, msg)
	}
	valueType(pbPeriodType)
	out.int(pbPeriod, 1)
	out.int(pbDefaultSampleType, strs.id(b.sampleType))
	// The string table last: every other field has added its strings.
	for _, s := range strs.list {
		out.bytes(pbStringTable, []byte(s))
	}
	return out
}

// Write writes the profile as gzipped profile.proto, the form `go tool
// pprof` reads.
func (b *ProfileBuilder) Write(w io.Writer) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return err
	}
	if _, err := zw.Write(b.encode()); err != nil {
		return fmt.Errorf("pprof: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("pprof: %w", err)
	}
	return nil
}
