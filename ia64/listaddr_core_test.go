package ia64_test

// listAddrFunc is libunwind's exported accessor of the list, appended to
// dynwalk.s: through the linkage table, as gcc compiles it for data not
// in the short data area (dynwalk's .data is too far from gp for a
// 22-bit gp-relative offset), so the address comes from the core's
// memory. A static executable's start code refers to __gp (glibc's
// start.S: movl gp = __gp), which makes the linker define the symbol.
const listAddrFunc = `
	.hidden _U_dyn_info_list
	.text
	.align 16
	.global _U_dyn_info_list_addr
	.proc _U_dyn_info_list_addr
_U_dyn_info_list_addr:
	.prologue
	.body
	addl r14 = @ltoff(_U_dyn_info_list#), gp
	;;
	ld8 r8 = [r14]
	br.ret.sptk.many b0
	.endp _U_dyn_info_list_addr
	.data
	.align 8
gp_ref:	data8 __gp
`
