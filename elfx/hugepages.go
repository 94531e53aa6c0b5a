package elfx

import "golang.org/x/sys/unix"

// A stream the unlisted walk inflates whole (python3.11-dbg's 11 MB of
// .debug_info, 3.4 MB of .debug_line) and keeps took one page fault per
// 4 KiB page it wrote: ~3,500 faults. Transparent huge pages take one
// per 2 MiB (measured: the report's sys time 27 -> 19 ms, its CPU -5%). The kernel here gives them
// only to mappings that ask (enabled=madvise); the stream asks only when
// it is inflated whole and kept, so that a stream which gives its pages
// back as it goes (the listed units' reads) keeps its RSS small.

// hugePageSize is the size of an x86-64 or arm64 transparent huge page;
// a smaller mapping cannot hold one.
const hugePageSize = 2 << 20

// hugePageMapLen is how long a mapping for n bytes is made: a mapping
// of a huge page or more is rounded up to whole huge pages, which Linux
// (6.12 on) starts at a huge page boundary, so that all of it can be
// backed by huge pages (an unaligned one has its first and last 2 MiB
// in small pages: 3.4 MB of python3.11's .debug_line held one huge
// page). Pages past n are never touched.
func hugePageMapLen(n int) int {
	if n < hugePageSize {
		return n
	}
	return (n + hugePageSize - 1) / hugePageSize * hugePageSize
}

// adviseHugePages asks the kernel for huge pages behind the stream's
// buffer, if the buffer is a mapping of ours at least a huge page long
// and not unmapped yet (its object closed). A kernel without them, or
// one that refuses, changes nothing but the faults.
func (st *sectionStream) adviseHugePages() {
	if m := st.mapping; m != nil && len(st.buf) >= hugePageSize {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.b != nil {
			unix.Madvise(m.b, unix.MADV_HUGEPAGE)
		}
	}
}
