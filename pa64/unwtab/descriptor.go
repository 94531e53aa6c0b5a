package unwtab

import "fmt"

// Descriptor is the two descriptor words of an unwind table entry (words
// 2 and 3 of the 16-byte entry). Bits are numbered as HP does, 0 = most
// significant; the accessors name them as readelf -u and the Linux kernel
// do (gdb's names differ for three of them; noted where they do).
type Descriptor struct {
	W1, W2 uint32
}

func bit(w uint32, shift uint) bool        { return w>>shift&1 != 0 }
func field(w uint32, shift, n uint) uint32 { return w >> shift & (1<<n - 1) }

// Word 1.
func (d Descriptor) CannotUnwind() bool      { return bit(d.W1, 31) }
func (d Descriptor) Millicode() bool         { return bit(d.W1, 30) }
func (d Descriptor) MillicodeSaveSR0() bool  { return bit(d.W1, 29) }
func (d Descriptor) RegionDescription() uint { return uint(field(d.W1, 27, 2)) }
func (d Descriptor) Reserved1() bool         { return bit(d.W1, 26) }
func (d Descriptor) EntrySR() bool           { return bit(d.W1, 25) }

// EntryFR is the number of callee-saved floating-point registers saved,
// fr12 upwards.
func (d Descriptor) EntryFR() int { return int(field(d.W1, 21, 4)) }

// EntryGR is the number of callee-saved general registers saved, r3
// upwards (gcc counts them but may save others: find the slots by the
// prologue's stores).
func (d Descriptor) EntryGR() int                    { return int(field(d.W1, 16, 5)) }
func (d Descriptor) ArgsStored() bool                { return bit(d.W1, 15) }
func (d Descriptor) VariableFrame() bool             { return bit(d.W1, 14) }
func (d Descriptor) SeparatePackageBody() bool       { return bit(d.W1, 13) }
func (d Descriptor) FrameExtensionMillicode() bool   { return bit(d.W1, 12) }
func (d Descriptor) StackOverflowCheck() bool        { return bit(d.W1, 11) }
func (d Descriptor) TwoInstructionSPIncrement() bool { return bit(d.W1, 10) }

// AdaRegion is gdb's sr4export.
func (d Descriptor) AdaRegion() bool      { return bit(d.W1, 9) }
func (d Descriptor) CxxInfo() bool        { return bit(d.W1, 8) }
func (d Descriptor) CxxTryCatch() bool    { return bit(d.W1, 7) }
func (d Descriptor) SchedEntrySeq() bool  { return bit(d.W1, 6) }
func (d Descriptor) Reserved2() bool      { return bit(d.W1, 5) }
func (d Descriptor) SaveSP() bool         { return bit(d.W1, 4) }
func (d Descriptor) SaveRP() bool         { return bit(d.W1, 3) }
func (d Descriptor) SaveMRPInFrame() bool { return bit(d.W1, 2) }

// ExtnPtrDefined is gdb's save_r19.
func (d Descriptor) ExtnPtrDefined() bool { return bit(d.W1, 1) }
func (d Descriptor) CleanupDefined() bool { return bit(d.W1, 0) }

// Word 2.
func (d Descriptor) MPEXLInterruptMarker() bool { return bit(d.W2, 31) }

// HPUXInterruptMarker marks an HP-UX interrupt (signal) frame.
func (d Descriptor) HPUXInterruptMarker() bool { return bit(d.W2, 30) }

// LargeFrame (HP: Large_frame_r3): the frame is over 8 KiB and r3 locates
// the previous frame marker.
func (d Descriptor) LargeFrame() bool { return bit(d.W2, 29) }

// PseudoSPSet is gdb's alloca_frame: past the prologue the frame base is
// r3 - frame size.
func (d Descriptor) PseudoSPSet() bool { return bit(d.W2, 28) }
func (d Descriptor) Reserved4() bool   { return bit(d.W2, 27) }

// TotalFrameSize is the frame size in 8-byte units.
func (d Descriptor) TotalFrameSize() uint32 { return field(d.W2, 0, 27) }

// FrameBytes is the frame size in bytes.
func (d Descriptor) FrameBytes() uint64 { return uint64(d.TotalFrameSize()) * 8 }

// Flags lists the descriptor as readelf -u prints it: set flags by
// readelf's names, in its order, counts as name=n; the reserved bits and
// Region_description are not printed (readelf does not either).
func (d Descriptor) Flags() []string {
	var out []string
	flag := func(set bool, name string) {
		if set {
			out = append(out, name)
		}
	}
	count := func(n int, name string) {
		if n != 0 {
			out = append(out, fmt.Sprintf("%s=%d", name, n))
		}
	}
	flag(d.CannotUnwind(), "Cannot_unwind")
	flag(d.Millicode(), "Millicode")
	flag(d.MillicodeSaveSR0(), "Millicode_save_sr0")
	flag(d.EntrySR(), "Entry_SR")
	count(d.EntryFR(), "Entry_FR")
	count(d.EntryGR(), "Entry_GR")
	flag(d.ArgsStored(), "Args_stored")
	flag(d.VariableFrame(), "Variable_Frame")
	flag(d.SeparatePackageBody(), "Separate_Package_Body")
	flag(d.FrameExtensionMillicode(), "Frame_Extension_Millicode")
	flag(d.StackOverflowCheck(), "Stack_Overflow_Check")
	flag(d.TwoInstructionSPIncrement(), "Two_Instruction_SP_Increment")
	flag(d.AdaRegion(), "Ada_Region")
	flag(d.CxxInfo(), "cxx_info")
	flag(d.CxxTryCatch(), "cxx_try_catch")
	flag(d.SchedEntrySeq(), "sched_entry_seq")
	flag(d.SaveSP(), "Save_SP")
	flag(d.SaveRP(), "Save_RP")
	flag(d.SaveMRPInFrame(), "Save_MRP_in_frame")
	flag(d.ExtnPtrDefined(), "extn_ptr_defined")
	flag(d.CleanupDefined(), "Cleanup_defined")
	flag(d.MPEXLInterruptMarker(), "MPE_XL_interrupt_marker")
	flag(d.HPUXInterruptMarker(), "HP_UX_interrupt_marker")
	flag(d.LargeFrame(), "Large_frame")
	flag(d.PseudoSPSet(), "Pseudo_SP_Set")
	count(int(d.TotalFrameSize()), "Total_frame_size")
	return out
}
