/*
 * libunwind-coredump: walk every thread of a Linux x86_64 core with
 * libunwind's remote unwinder and print the instruction pointers. No
 * symbols, no lines: this is the "unwinding alone" baseline of the
 * benchmark.
 *
 *   libunwind-coredump [-q] CORE
 *
 * -q prints one summary line per thread instead of every IP.
 *
 * Why not plain _UCD_accessors: the libunwind 1.6 coredump helpers read a
 * file-backed segment at offset (addr - segment start) in the backing file
 * and assume the text segment is the one at file offset 0. Binaries linked
 * with -z separate-code (the default on Debian and most distributions for
 * years) put text at a non-zero offset, so with _UCD_accessors every IP in
 * such a file gets no unwind info and libunwind falls back to guessing with
 * the frame pointer. That would make the baseline both wrong and
 * artificially fast. So this program keeps _UCD for what it does well
 * (threads and registers from NT_PRSTATUS) and supplies the two accessors
 * that need mappings:
 *
 *   access_mem      bytes in the core's PT_LOAD segments, else from the
 *                   file that NT_FILE says was mapped there, at the right
 *                   file offset;
 *   find_proc_info  the .eh_frame_hdr of the mapped file (or of the vDSO
 *                   image in the core), searched by libunwind's own
 *                   dwarf_search_unwind_table, as _UPT_find_proc_info does
 *                   for a live process.
 *
 * Build: cc -O2 -o libunwind-coredump libunwind-coredump.c \
 *          -lunwind-coredump -lunwind-generic -lunwind-x86_64 -lunwind
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <libunwind-coredump.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NT_FILE
#define NT_FILE 0x46494c45
#endif

#define MAX_FRAMES 1000000

/* DWARF pointer encodings used by .eh_frame_hdr. */
#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_pcrel 0x10
#define DW_EH_PE_datarel 0x30

/* Exported by libunwind-x86_64 (libunwind-ptrace uses it) but not declared
 * in the installed headers. */
extern int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

/* image is a read-only view of an ELF file (or of the vDSO in the core). */
struct image {
	const uint8_t *data;
	size_t size;
};

/* mapping is one NT_FILE entry: [start, end) maps file name at offset. */
struct mapping {
	uint64_t start, end, offset;
	const char *name;
	int tried;		/* opened (or failed to) already */
	struct image *img;	/* shared by every mapping of the same file */
};

struct core {
	struct image file;
	const Elf64_Phdr *loads[4096];
	size_t nloads;
	struct mapping *maps;
	size_t nmaps;
	struct UCD_info *ucd;
	struct image vdso;
	uint64_t vdso_start;
};

static int map_file(const char *path, struct image *img)
{
	int fd = open(path, O_RDONLY);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_size == 0) {
		close(fd);
		return -1;
	}
	img->data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img->data == MAP_FAILED) {
		img->data = NULL;
		return -1;
	}
	img->size = (size_t)st.st_size;
	return 0;
}

static const Elf64_Ehdr *elf_header(const struct image *img)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img->data;

	if (img->size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff > img->size ||
	    (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > img->size - eh->e_phoff)
		return NULL;
	return eh;
}

static const Elf64_Phdr *phdrs(const struct image *img, const Elf64_Ehdr *eh)
{
	return (const Elf64_Phdr *)(img->data + eh->e_phoff);
}

/* parse_nt_file reads the NT_FILE note: count, page size, count triples
 * (start, end, page offset), then count NUL-terminated names. */
static int parse_nt_file(struct core *c, const uint8_t *desc, size_t size)
{
	uint64_t count, pagesz;
	const char *names, *end = (const char *)desc + size;

	if (size < 16)
		return -1;
	memcpy(&count, desc, 8);
	memcpy(&pagesz, desc + 8, 8);
	if (count > (size - 16) / 24)
		return -1;
	c->maps = calloc(count ? count : 1, sizeof(*c->maps));
	if (!c->maps)
		return -1;
	names = (const char *)desc + 16 + count * 24;
	for (uint64_t i = 0; i < count && names < end; i++) {
		struct mapping *m = &c->maps[c->nmaps++];
		const uint8_t *e = desc + 16 + i * 24;
		size_t len = strnlen(names, (size_t)(end - names));

		memcpy(&m->start, e, 8);
		memcpy(&m->end, e + 8, 8);
		memcpy(&m->offset, e + 16, 8);
		m->offset *= pagesz;
		m->name = names;
		names += len + 1;
	}
	return 0;
}

static int open_core(struct core *c, const char *path)
{
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph;

	if (map_file(path, &c->file) != 0) {
		fprintf(stderr, "libunwind-coredump: %s: %s\n", path, strerror(errno));
		return -1;
	}
	eh = elf_header(&c->file);
	if (!eh || eh->e_type != ET_CORE) {
		fprintf(stderr, "libunwind-coredump: %s: not an ELF64 core\n", path);
		return -1;
	}
	ph = phdrs(&c->file, eh);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && c->nloads < sizeof(c->loads) / sizeof(c->loads[0])) {
			if (ph[i].p_offset <= c->file.size &&
			    ph[i].p_filesz <= c->file.size - ph[i].p_offset)
				c->loads[c->nloads++] = &ph[i];
			continue;
		}
		if (ph[i].p_type != PT_NOTE || ph[i].p_offset > c->file.size ||
		    ph[i].p_filesz > c->file.size - ph[i].p_offset)
			continue;
		const uint8_t *p = c->file.data + ph[i].p_offset;
		const uint8_t *end = p + ph[i].p_filesz;
		while ((size_t)(end - p) >= sizeof(Elf64_Nhdr)) {
			const Elf64_Nhdr *n = (const Elf64_Nhdr *)p;
			size_t name = (n->n_namesz + 3) & ~(size_t)3;
			size_t desc = (n->n_descsz + 3) & ~(size_t)3;

			p += sizeof(*n);
			if (name > (size_t)(end - p) || desc > (size_t)(end - p - name))
				break;
			if (n->n_type == NT_FILE && !c->maps)
				parse_nt_file(c, p + name, n->n_descsz);
			p += name + desc;
		}
	}
	return 0;
}

/* core_bytes returns the core's copy of [addr, addr+len), if dumped. */
static const uint8_t *core_bytes(struct core *c, uint64_t addr, size_t len)
{
	for (size_t i = 0; i < c->nloads; i++) {
		const Elf64_Phdr *ph = c->loads[i];

		if (addr >= ph->p_vaddr && addr - ph->p_vaddr <= ph->p_filesz &&
		    len <= ph->p_filesz - (addr - ph->p_vaddr))
			return c->file.data + ph->p_offset + (addr - ph->p_vaddr);
	}
	return NULL;
}

static struct mapping *find_mapping(struct core *c, uint64_t addr)
{
	for (size_t i = 0; i < c->nmaps; i++)
		if (addr >= c->maps[i].start && addr < c->maps[i].end)
			return &c->maps[i];
	return NULL;
}

static struct image *mapping_image(struct core *c, struct mapping *m)
{
	if (m->tried)
		return m->img;
	m->tried = 1;
	for (size_t i = 0; i < c->nmaps; i++) {
		if (c->maps[i].img && strcmp(c->maps[i].name, m->name) == 0) {
			m->img = c->maps[i].img;
			return m->img;
		}
	}
	struct image *img = calloc(1, sizeof(*img));
	if (img && map_file(m->name, img) == 0) {
		m->img = img;
		return img;
	}
	free(img);
	return NULL;
}

/* file_bytes returns the bytes the file mapped at addr holds there. */
static const uint8_t *file_bytes(struct core *c, uint64_t addr, size_t len)
{
	struct mapping *m = find_mapping(c, addr);
	struct image *img;
	uint64_t off;

	if (!m || len > m->end - addr || !(img = mapping_image(c, m)))
		return NULL;
	off = m->offset + (addr - m->start);
	if (off > img->size || len > img->size - off)
		return NULL;
	return img->data + off;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write, void *arg)
{
	struct core *c = arg;
	const uint8_t *p;

	(void)as;
	if (write)
		return -UNW_EINVAL;
	p = core_bytes(c, addr, sizeof(*val));
	if (!p)
		p = file_bytes(c, addr, sizeof(*val));
	if (!p)
		return -UNW_EINVAL;
	memcpy(val, p, sizeof(*val));
	return 0;
}

/* find_vdso locates the vDSO: a fully dumped PT_LOAD that is an ELF image
 * and has no NT_FILE entry. */
static void find_vdso(struct core *c)
{
	for (size_t i = 0; i < c->nloads; i++) {
		const Elf64_Phdr *ph = c->loads[i];
		struct image img = {c->file.data + ph->p_offset, ph->p_filesz};

		if (ph->p_filesz == 0 || ph->p_filesz != ph->p_memsz || find_mapping(c, ph->p_vaddr))
			continue;
		if (elf_header(&img) && ((const Elf64_Ehdr *)img.data)->e_type == ET_DYN) {
			c->vdso = img;
			c->vdso_start = ph->p_vaddr;
			return;
		}
	}
}

static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
			  int need_unwind_info, void *arg)
{
	struct core *c = arg;
	struct mapping *m = find_mapping(c, ip);
	const struct image *img;
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph, *ehf = NULL;
	uint64_t bias = 0, lo = UINT64_MAX, hi = 0;
	int have_bias = 0;

	if (m) {
		img = mapping_image(c, m);
	} else if (c->vdso.data && ip >= c->vdso_start && ip - c->vdso_start < c->vdso.size) {
		img = &c->vdso;
		bias = c->vdso_start;
		have_bias = 1;
	} else {
		return -UNW_ENOINFO;
	}
	if (!img || !(eh = elf_header(img)))
		return -UNW_ENOINFO;
	ph = phdrs(img, eh);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			ehf = &ph[i];
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_vaddr < lo)
			lo = ph[i].p_vaddr;
		if (ph[i].p_vaddr + ph[i].p_memsz > hi)
			hi = ph[i].p_vaddr + ph[i].p_memsz;
		/* The load segment holding the mapping's file offset fixes the
		 * load bias: that offset sits at m->start in memory. */
		if (!have_bias && m->offset >= (ph[i].p_offset & ~0xfffULL) &&
		    m->offset < ph[i].p_offset + ph[i].p_filesz) {
			bias = m->start - (ph[i].p_vaddr - (ph[i].p_offset - m->offset));
			have_bias = 1;
		}
	}
	if (!ehf || !have_bias || ehf->p_offset > img->size || ehf->p_filesz < 12 ||
	    ehf->p_filesz > img->size - ehf->p_offset)
		return -UNW_ENOINFO;

	/* .eh_frame_hdr: version 1, then the encodings of eh_frame_ptr,
	 * fde_count and the table. Only the layout every GNU linker emits
	 * (pcrel|sdata4, udata4, datarel|sdata4) is handled. */
	const uint8_t *hdr = img->data + ehf->p_offset;
	uint32_t fde_count;

	if (hdr[0] != 1 || hdr[1] != (DW_EH_PE_pcrel | DW_EH_PE_sdata4) ||
	    hdr[2] != DW_EH_PE_udata4 || hdr[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return -UNW_ENOINFO;
	memcpy(&fde_count, hdr + 8, 4);
	if ((uint64_t)fde_count * 8 > ehf->p_filesz - 12)
		return -UNW_ENOINFO;

	unw_dyn_info_t di;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = bias + lo;
	di.end_ip = bias + hi;
	di.u.rti.segbase = bias + ehf->p_vaddr;
	di.u.rti.table_data = bias + ehf->p_vaddr + 12;
	di.u.rti.table_len = (uint64_t)fde_count * 8 / sizeof(unw_word_t);
	return _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	(void)as;
	(void)arg;
	free(pi->unwind_info);
	pi->unwind_info = NULL;
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	(void)as;
	(void)addr;
	(void)arg;
	return -UNW_ENOINFO;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write, void *arg)
{
	return _UCD_access_reg(as, reg, val, write, ((struct core *)arg)->ucd);
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			void *arg)
{
	return _UCD_access_fpreg(as, reg, val, write, ((struct core *)arg)->ucd);
}

static int resume(unw_addr_space_t as, unw_cursor_t *cur, void *arg)
{
	(void)as;
	(void)cur;
	(void)arg;
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t ip, char *buf, size_t len,
			 unw_word_t *off, void *arg)
{
	(void)as;
	(void)ip;
	(void)buf;
	(void)len;
	(void)off;
	(void)arg;
	return -UNW_ENOINFO;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

int main(int argc, char **argv)
{
	static struct core c;
	int quiet = 0, nthreads;
	long total = 0;
	const char *path;
	unw_addr_space_t as;

	if (argc == 3 && strcmp(argv[1], "-q") == 0) {
		quiet = 1;
		path = argv[2];
	} else if (argc == 2) {
		path = argv[1];
	} else {
		fprintf(stderr, "usage: %s [-q] CORE\n", argv[0]);
		return 2;
	}
	if (open_core(&c, path) != 0)
		return 1;
	find_vdso(&c);
	c.ucd = _UCD_create(path);
	if (!c.ucd) {
		fprintf(stderr, "libunwind-coredump: %s: _UCD_create failed\n", path);
		return 1;
	}
	as = unw_create_addr_space(&accessors, 0);
	if (!as) {
		fprintf(stderr, "libunwind-coredump: unw_create_addr_space failed\n");
		return 1;
	}
	unw_set_caching_policy(as, UNW_CACHE_GLOBAL);

	nthreads = _UCD_get_num_threads(c.ucd);
	for (int t = 0; t < nthreads; t++) {
		unw_cursor_t cur;
		unw_word_t ip;
		int n = 0, ret;

		_UCD_select_thread(c.ucd, t);
		ret = unw_init_remote(&cur, as, &c);
		if (ret < 0) {
			printf("thread %d: unw_init_remote: %s\n", t, unw_strerror(ret));
			continue;
		}
		if (!quiet)
			printf("thread %d:\n", t);
		do {
			if (unw_get_reg(&cur, UNW_REG_IP, &ip) < 0)
				break;
			if (!quiet)
				printf("  #%-4d 0x%016lx\n", n, (unsigned long)ip);
			n++;
			ret = unw_step(&cur);
		} while (ret > 0 && n < MAX_FRAMES);
		if (quiet)
			printf("thread %d: %d frames\n", t, n);
		if (ret < 0)
			printf("thread %d: stopped: %s\n", t, unw_strerror(ret));
		total += n;
	}
	fprintf(stderr, "libunwind-coredump: %d threads, %ld frames\n", nthreads, total);
	unw_destroy_addr_space(as);
	_UCD_destroy(c.ucd);
	return 0;
}
