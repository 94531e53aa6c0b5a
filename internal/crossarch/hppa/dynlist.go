package hppa

import (
	"encoding/binary"

	"github.com/coreunwind/coreunwind/internal/crossarch/dynlist"
)

// The libunwind dynamic-info structures, as the shared writer lays them
// out; PA-RISC targets are big-endian.
type (
	DynOp     = dynlist.DynOp
	DynRegion = dynlist.DynRegion
	DynEntry  = dynlist.DynEntry
	DynWriter = dynlist.Writer
)

// Operation tags (unw_dyn_operation_t).
const (
	DynStop       = dynlist.DynStop
	DynSaveReg    = dynlist.DynSaveReg
	DynSpillFPRel = dynlist.DynSpillFPRel
	DynSpillSPRel = dynlist.DynSpillSPRel
	DynAdd        = dynlist.DynAdd
	DynPopFrames  = dynlist.DynPopFrames
	DynLabelState = dynlist.DynLabelState
	DynCopyState  = dynlist.DynCopyState
	DynAlias      = dynlist.DynAlias
)

// NewDynWriter hands out [base, base+n) of a big-endian target with
// word-byte words.
func NewDynWriter(word int, base, n uint64, put func(addr uint64, b []byte) bool) *DynWriter {
	return dynlist.NewWriter(binary.BigEndian, word, base, n, put)
}
