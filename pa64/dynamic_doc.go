package pa64

// Dynamic unwind info on PA-RISC, hppa and hppa64 (libunwind-dynamic; the
// model, the registration list and the replay of the regions and
// operations, unwind.ReplayDynamic, are package unwind's; the operations
// apply in dynamic.go, tables in dynamic_table.go). Registered info is consulted for a pc
// before the static table path; a frame found through it has trust
// "dynamic". Info that cannot be applied (invalid operations, a table
// that cannot be read) leaves the pc to the static path and its
// fallbacks.
//
//   - An instruction index counts 4-byte instructions: a region's
//     InsnCount is its length in instructions (-N: the procedure's last
//     N), an operation's When the index in its region of the instruction
//     it describes. Its effect holds once that instruction has run: for
//     the innermost frame at pcs after it, for a caller at its return
//     address (the call's delay slot has run).
//   - Operations name pa64's register numbers: gr1..gr31 (rp is 2, sp
//     30) and fr0..fr31 as 32..63. gr0 and anything else is invalid.
//     Qualifying predicates do not exist on PA-RISC and are ignored.
//   - The entry state: the return address in rp, sp the caller's,
//     every register unchanged.
//   - ADD sp,v: the frame grew by v bytes; stacks grow upward, so a
//     prologue's ADD is positive and the caller's sp is sp minus the sum.
//     ADD on the register holding the frame base moves the base; on
//     another register r, the caller's r is the current r minus the sum
//     (unless r was saved: then the change is the callee's own).
//   - SAVE_REG sp,d: d holds the frame base from now on (copy %sp,%r3);
//     SAVE_REG r,d otherwise: the caller's r is in d (rp in r31, a GR
//     in r1), within one register file.
//   - SPILL_SP_REL r,off: the caller's r is at sp+off, sp as the
//     operations before it left it (std,ma r,n(sp) is the spill at 0,
//     then ADD sp,n). SPILL_FP_REL r,off: at the frame base (the
//     caller's sp, which gcc's frame pointer r3 holds) plus off. A saved
//     rp is the return address; a saved sp is the caller's sp.
//   - POP_FRAMES n: the epilogue has undone the frame; the entry state
//     holds again (n is not counted: PA-RISC frames do not nest within a
//     procedure).
//   - LABEL_STATE / COPY_STATE save and restore the whole state by label
//     (at most 64 labels). ALIAS a: the region unwinds as the code at a
//     plus the target's offset in the region (clipped to the region's
//     length), registered or in a
//     .PARISC.unwind table (chains of at most 4).
//   - TABLE and REMOTE_TABLE data is a .PARISC.unwind table in target
//     memory: TableLen target words of 16-byte entries (region start,
//     region end = its last instruction, two descriptor words; 32-bit
//     fields in both word sizes), offsets from Segbase, sorted by start.
//     An entry goes through the table path (descriptor flags and the
//     prologue scan of the registered code); a pc in the registered range
//     without an entry is a leaf (return in rp).
