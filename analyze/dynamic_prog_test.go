package analyze

// dynamicJITProg writes x86-64 machine code into executable memory,
// describes it to libunwind with _U_dyn_register in all three formats and
// calls through the generated functions into crash_cb, which crashes.
//
//	./prog remote OUT    run -> C1 -> C2 -> crash_cb (REMOTE_TABLE entries,
//	                     with and without a frame pointer); crash_cb
//	                     writes libunwind's own backtrace to OUT first.
//	./prog dynamic OUT   run -> E -> A -> B -> D -> crash_cb: A and B are
//	                     DYNAMIC (regions and operations), D is TABLE, E
//	                     is described only by perf-PID.map. OUT gets the
//	                     return addresses the generated code pushes and
//	                     libunwind's backtrace of run's callers.
//
// OUT lines: "fn NAME ADDR LEN" for each generated function, "ra ADDR"
// (dynamic: return addresses into generated code, innermost first), "bt
// ADDR" (libunwind's frames).
const dynamicJITProg = `
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct next { void *fn; void *arg; };
static FILE *out;
static int remote_mode;

/* push %rbp; mov %rsp,%rbp; push %rbx; sub $0x18,%rsp; mov %rdi,%rbx;
   mov (%rbx),%rax; mov 8(%rbx),%rdi; call *%rax; add $0x18,%rsp;
   pop %rbx; pop %rbp; ret */
static const unsigned char fp_code[] = {
	0x55, 0x48,0x89,0xe5, 0x53, 0x48,0x83,0xec,0x18, 0x48,0x89,0xfb,
	0x48,0x8b,0x03, 0x48,0x8b,0x7b,0x08, 0xff,0xd0, 0x48,0x83,0xc4,0x18,
	0x5b, 0x5d, 0xc3 };
enum { FP_LEN = sizeof fp_code, FP_RA = 0x15 };

/* push %rbx; sub $0x20,%rsp; mov %rdi,%rbx; mov (%rbx),%rax;
   mov 8(%rbx),%rdi; call *%rax; add $0x20,%rsp; pop %rbx; ret */
static const unsigned char nofp_code[] = {
	0x53, 0x48,0x83,0xec,0x20, 0x48,0x89,0xfb, 0x48,0x8b,0x03,
	0x48,0x8b,0x7b,0x08, 0xff,0xd0, 0x48,0x83,0xc4,0x20, 0x5b, 0xc3 };
enum { NOFP_LEN = sizeof nofp_code, NOFP_RA = 0x11 };

static unsigned char *page;

static void record_bt(unw_context_t *uc, int skip) {
	unw_cursor_t c;
	unw_init_local(&c, uc);
	int i = 0;
	do {
		unw_word_t ip;
		unw_get_reg(&c, UNW_REG_IP, &ip);
		if (i++ >= skip) fprintf(out, "bt %lx\n", (unsigned long)ip);
	} while (unw_step(&c) > 0 && i < 64);
}

__attribute__((noinline)) void crash_cb(void *arg) {
	(void)arg;
	if (remote_mode) {
		unw_context_t uc;
		unw_getcontext(&uc);
		record_bt(&uc, 0);
	}
	fclose(out);
	*(volatile int *)0 = 1;
}

/* .eh_frame: one CIE (zR, pcrel sdata4 FDE pointers), FDEs appended. */
static unsigned char *eh, *ehp;
static void put4(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static unsigned char *cie(void) {
	static const unsigned char body[] = { 0,0,0,0, 1, 'z','R',0, 1, 0x78, 16, 1, 0x1b,
		0x0c,0x07,0x08, 0x90,0x01, 0,0 };
	unsigned char *c = ehp;
	put4(c, sizeof body);
	memcpy(c + 4, body, sizeof body);
	ehp += 4 + sizeof body;
	return c;
}
static unsigned char *fde(unsigned char *c, unsigned char *fn, int len, const unsigned char *ins, int n) {
	unsigned char *f = ehp;
	int body = 4 + 4 + 4 + 1 + n;
	int pad = (4 - body % 4) % 4;
	put4(f, body + pad);
	put4(f + 4, (uint32_t)(f + 4 - c));
	put4(f + 8, (uint32_t)(fn - (f + 8)));
	put4(f + 12, len);
	f[16] = 0;
	memcpy(f + 17, ins, n);
	memset(f + 17 + n, 0, pad);
	ehp += 4 + body + pad;
	return f;
}
static const unsigned char fp_cfi[] = { 0x41, 0x0e,0x10, 0x86,0x02, 0x43, 0x0d,0x06,
	0x41, 0x83,0x03, 0x56, 0x0c,0x07,0x08 };
static const unsigned char nofp_cfi[] = { 0x41, 0x0e,0x10, 0x83,0x02, 0x44, 0x0e,0x30,
	0x50, 0x0e,0x10, 0x41, 0x0e,0x08 };

static int32_t *tabp;
static unw_dyn_info_t *table_info(int format, const char *name, unsigned char *fn, int len, unsigned char *f) {
	unw_dyn_info_t *di = calloc(1, sizeof *di);
	int32_t *t = tabp;
	t[0] = (int32_t)(fn - page);
	t[1] = (int32_t)(f - page);
	tabp += 2;
	di->start_ip = (unw_word_t)fn;
	di->end_ip = (unw_word_t)fn + len;
	di->format = format;
	di->u.rti.name_ptr = (unw_word_t)name;
	di->u.rti.segbase = (unw_word_t)page;
	di->u.rti.table_len = 1; /* words: one 8-byte entry */
	di->u.rti.table_data = (unw_word_t)t;
	return di;
}

static unw_dyn_region_info_t *region(int insns, int n, const unw_dyn_op_t *ops) {
	unw_dyn_region_info_t *r = calloc(1, _U_dyn_region_info_size(n));
	r->insn_count = insns;
	r->op_count = n;
	memcpy(r->op, ops, n * sizeof *ops);
	return r;
}

static unw_dyn_info_t *dyn_info(const char *name, unsigned char *fn, int len, unw_dyn_region_info_t *regions) {
	unw_dyn_info_t *di = calloc(1, sizeof *di);
	di->start_ip = (unw_word_t)fn;
	di->end_ip = (unw_word_t)fn + len;
	di->format = UNW_INFO_FORMAT_DYNAMIC;
	di->u.pi.name_ptr = (unw_word_t)name;
	di->u.pi.regions = regions;
	return di;
}

static void emit(unsigned char *at, const char *name, int fp) {
	memcpy(at, fp ? fp_code : nofp_code, fp ? FP_LEN : NOFP_LEN);
	fprintf(out, "fn %s %lx %d\n", name, (unsigned long)at, fp ? FP_LEN : NOFP_LEN);
}

__attribute__((noinline)) void run(unsigned char *first, struct next *n) {
	if (!remote_mode) {
		unw_context_t uc;
		unw_getcontext(&uc);
		record_bt(&uc, 1);
	}
	((void (*)(void *))first)(n);
	printf("returned\n");
}

int main(int argc, char **argv) {
	if (argc < 3) return 2;
	remote_mode = strcmp(argv[1], "remote") == 0;
	out = fopen(argv[2], "w");
	page = mmap(NULL, 0x1000, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!out || page == MAP_FAILED) return 3;
	unsigned char *A = page, *B = page + 0x40, *C1 = page + 0x80, *C2 = page + 0xc0,
		*D = page + 0x100, *E = page + 0x140;
	emit(A, "jit_A_dynamic_fp", 1);
	emit(B, "jit_B_dynamic_nofp", 0);
	emit(C1, "jit_C1_remote_fp", 1);
	emit(C2, "jit_C2_remote_nofp", 0);
	emit(D, "jit_D_table_nofp", 0);
	emit(E, "jit_E_perfmap", 1);

	/* A: operations given out of order (when 4, 5, 0, 0, 1, 4); same-when
	   operations keep their order (the push's ADD before its spill). */
	unw_dyn_op_t a1[6], a2[2], a3[1];
	_U_dyn_op_spill_fp_rel(&a1[0], _U_QP_TRUE, 4, UNW_X86_64_RBX, -8);
	_U_dyn_op_add(&a1[1], _U_QP_TRUE, 5, UNW_X86_64_RSP, -0x18);
	_U_dyn_op_add(&a1[2], _U_QP_TRUE, 0, UNW_X86_64_RSP, -8);
	_U_dyn_op_spill_sp_rel(&a1[3], _U_QP_TRUE, 0, UNW_X86_64_RBP, 0);
	_U_dyn_op_save_reg(&a1[4], _U_QP_TRUE, 1, UNW_X86_64_RSP, UNW_X86_64_RBP);
	_U_dyn_op_add(&a1[5], _U_QP_TRUE, 4, UNW_X86_64_RSP, -8);
	_U_dyn_op_add(&a2[0], _U_QP_TRUE, 0x15 - 9, UNW_X86_64_RSP, 0x18);
	_U_dyn_op_add(&a2[1], _U_QP_TRUE, 0x19 - 9, UNW_X86_64_RSP, 8);
	_U_dyn_op_pop_frames(&a3[0], _U_QP_TRUE, 0, 1);
	unw_dyn_region_info_t *ar3 = region(-2, 1, a3), *ar2 = region(0x1a - 9, 2, a2), *ar1 = region(9, 6, a1);
	ar1->next = ar2; ar2->next = ar3;

	/* B: prologue region, then the last two bytes (pop %rbx; ret). */
	unw_dyn_op_t b1[3], b2[1];
	_U_dyn_op_add(&b1[0], _U_QP_TRUE, 0, UNW_X86_64_RSP, -8);
	_U_dyn_op_spill_sp_rel(&b1[1], _U_QP_TRUE, 0, UNW_X86_64_RBX, 0);
	_U_dyn_op_add(&b1[2], _U_QP_TRUE, 1, UNW_X86_64_RSP, -0x20);
	_U_dyn_op_pop_frames(&b2[0], _U_QP_TRUE, 0, 1);
	unw_dyn_region_info_t *br1 = region(5, 3, b1), *br2 = region(-2, 1, b2);
	br1->next = br2;

	eh = ehp = page + 0x800;
	tabp = (int32_t *)(page + 0xc00);
	unsigned char *c = cie();
	unsigned char *fc1 = fde(c, C1, FP_LEN, fp_cfi, sizeof fp_cfi);
	unsigned char *fc2 = fde(c, C2, NOFP_LEN, nofp_cfi, sizeof nofp_cfi);
	unsigned char *fd = fde(c, D, NOFP_LEN, nofp_cfi, sizeof nofp_cfi);
	put4(ehp, 0);

	_U_dyn_register(dyn_info("jit_A_dynamic_fp", A, FP_LEN, ar1));
	_U_dyn_register(dyn_info("jit_B_dynamic_nofp", B, NOFP_LEN, br1));
	_U_dyn_register(table_info(UNW_INFO_FORMAT_REMOTE_TABLE, "jit_C1_remote_fp", C1, FP_LEN, fc1));
	_U_dyn_register(table_info(UNW_INFO_FORMAT_REMOTE_TABLE, "jit_C2_remote_nofp", C2, NOFP_LEN, fc2));
	_U_dyn_register(table_info(UNW_INFO_FORMAT_TABLE, "jit_D_table_nofp", D, NOFP_LEN, fd));
	/* A registration cancelled again must not be found. */
	unw_dyn_info_t *gone = dyn_info("jit_cancelled", E, FP_LEN, NULL);
	_U_dyn_register(gone);
	_U_dyn_cancel(gone);

	if (remote_mode) {
		static struct next n1, n2;
		n1 = (struct next){ C2, &n2 };
		n2 = (struct next){ (void *)crash_cb, NULL };
		run(C1, &n1);
		return 0;
	}
	char map[64];
	snprintf(map, sizeof map, "perf-%d.map", (int)getpid());
	FILE *pm = fopen(map, "w");
	fprintf(pm, "%lx %x jit_A_stale_perf_name\n", (unsigned long)A, FP_LEN);
	fprintf(pm, "%lx %x jit_E_perfmap\n", (unsigned long)E, FP_LEN);
	fclose(pm);
	fprintf(out, "ra %lx\nra %lx\nra %lx\nra %lx\n", (unsigned long)(D + NOFP_RA),
		(unsigned long)(B + NOFP_RA), (unsigned long)(A + FP_RA), (unsigned long)(E + FP_RA));
	static struct next ne, na, nb, nd;
	ne = (struct next){ A, &na };
	na = (struct next){ B, &nb };
	nb = (struct next){ D, &nd };
	nd = (struct next){ (void *)crash_cb, NULL };
	fflush(out);
	run(E, &ne);
	return 0;
}
`
