package pa64

// Dynamic unwind info on PA-RISC, hppa and hppa64 (libunwind-dynamic; the
// model and the registration list are package unwind's):
//
//   - An instruction index counts 4-byte instructions: a region's
//     InsnCount is its length in instructions, an operation's When the
//     index in its region of the instruction it describes.
//   - Operations name the general registers gr0..gr31 (sp is gr30, rp
//     gr2). Qualifying predicates do not exist on PA-RISC and are ignored.
//   - ADD on sp is the frame allocation: the stack grows upward, so a
//     prologue's ADD is positive.
//   - POP_FRAMES returns to the entry state (the epilogue has undone the
//     frame).
//   - TABLE and REMOTE_TABLE data is a .PARISC.unwind table in target
//     memory: 16-byte descriptors (region start, region end, two flag
//     words), offsets from the segment base.
//
// Not applied yet: this package does not consult registered info, so a
// frame of registered PA-RISC code is named (analyze reads the list on
// every architecture) but unwound by the fallbacks.
