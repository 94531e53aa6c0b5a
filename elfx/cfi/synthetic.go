package cfi

import "encoding/binary"

// Synthesize builds an FDE for [begin, end) whose rules are DWARF call
// frame instructions made elsewhere than in a binary's sections (from a
// Breakpad symbol file's STACK CFI records, say): initial and
// instructions run as a CIE's initial instructions and an FDE's would,
// under a CIE with code and data alignment 1 and return-address column
// raColumn. Its rows are found and kept as for a parsed FDE.
func Synthesize(raColumn uint64, order binary.ByteOrder, ptrSize int, begin, end uint64, initial, instructions []byte) *FDE {
	c := &CIE{Version: 1, CodeAlign: 1, DataAlign: 1, RAColumn: raColumn, Initial: initial,
		AddrSize: uint8(ptrSize), section: "synthesized", order: order, ptrSize: ptrSize, is64: ptrSize == 8}
	c.initial, c.initErr = runInitial(c)
	return &FDE{CIE: c, Begin: begin, End: end, Instructions: instructions, instrAddr: begin, rows: &rowMemo{}}
}
