package live

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A dump is the whole process as a core on disk, for gdb, eu-stack and
// coreunwind alike, as gdb's gcore writes one: every thread's registers
// and the memory /proc/PID/coredump_filter asks the kernel to dump,
// written while the threads are stopped so that it is one moment.

// coredump_filter bits (core(5)).
const (
	filterAnonPrivate = 1 << 0
	filterAnonShared  = 1 << 1
	filterFilePrivate = 1 << 2
	filterFileShared  = 1 << 3
	filterELFHeaders  = 1 << 4
	filterHugePrivate = 1 << 5
	filterHugeShared  = 1 << 6
	defaultDumpFilter = 0x33 // the kernel's default
	elfHeaderBytes    = pageSize
)

// vmInfo is what /proc/PID/smaps says of a mapping that the filter
// needs: whether it has pages of its own (the kernel's anon_vma: written
// or copied-on-write pages, swapped ones too) and its VmFlags.
type vmInfo struct {
	anon  bool
	flags map[string]bool
}

// readSmaps reads dir's smaps (dir: Snapshot.dir) into vmInfo by mapping
// start.
func readSmaps(dir string) map[uint64]vmInfo {
	b, err := os.ReadFile(filepath.Join(dir, "smaps"))
	if err != nil {
		return nil
	}
	return parseSmaps(b)
}

// parseSmaps parses the text of /proc/PID/smaps: a maps line, then
// "Key: value" lines for that mapping.
func parseSmaps(b []byte) map[uint64]vmInfo {
	out := map[uint64]vmInfo{}
	var cur uint64
	var info vmInfo
	have := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		key, val, isField := strings.Cut(line, ":")
		if isField && strings.ContainsAny(key, " -") {
			isField = false // "7f..-7f.. r-xp 00000000 08:01 12 /lib/x.so: odd name"
		}
		if !isField {
			if m, ok := parseMapsLine(line); ok {
				if have {
					out[cur] = info
				}
				cur, info, have = m.Start, vmInfo{flags: map[string]bool{}}, true
			}
			continue
		}
		if !have {
			continue
		}
		switch key {
		case "Anonymous", "Swap":
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
			info.anon = info.anon || kb > 0
		case "VmFlags":
			for _, f := range strings.Fields(val) {
				info.flags[f] = true
			}
		}
	}
	if have {
		out[cur] = info
	}
	return out
}

// dumpFilter is dir's coredump_filter (the default when unreadable).
func dumpFilter(dir string) uint64 {
	b, err := os.ReadFile(filepath.Join(dir, "coredump_filter"))
	if err != nil {
		return defaultDumpFilter
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 16, 64)
	if err != nil {
		return defaultDumpFilter
	}
	return v
}

// dumpSize is how much of mapping m a core holds, by the kernel's rules
// (vma_dump_size in fs/coredump.c).
func (s *Snapshot) dumpSize(m mapping, info vmInfo, haveInfo bool, filter uint64) uint64 {
	size := m.End - m.Start
	switch {
	case !m.readable() || m.special() || info.flags["dd"] || info.flags["io"] || info.flags["pf"]:
		return 0 // unreadable, a device, or marked not to dump
	case m.Path == "[vdso]":
		return size // always dumped: no file has it
	case info.flags["ht"]:
		if (m.shared() && filter&filterHugeShared != 0) || (!m.shared() && filter&filterHugePrivate != 0) {
			return size
		}
		return 0
	case m.shared():
		// A deleted file (shared memory, memfd) counts as anonymous.
		anon := !m.fileBacked() || strings.HasSuffix(m.Path, " (deleted)")
		if (anon && filter&filterAnonShared != 0) || (!anon && filter&filterFileShared != 0) {
			return size
		}
		return 0
	case !m.fileBacked():
		// Anonymous private memory: only pages the process has (an
		// untouched reservation would dump as zeros).
		if filter&filterAnonPrivate != 0 && (info.anon || !haveInfo) {
			return size
		}
		return 0
	case filter&filterFilePrivate != 0:
		return size
	case info.anon && filter&filterAnonPrivate != 0:
		return size // a file's pages the process wrote (.data, relocations)
	case filter&filterELFHeaders != 0 && m.Offset == 0 && s.startsWithELF(m.Start):
		// The first page of an ELF file: its build ID, for readers to
		// find the file.
		return min(size, elfHeaderBytes)
	}
	return 0
}

func (s *Snapshot) startsWithELF(addr uint64) bool {
	var magic [4]byte
	return s.mem.readFull(addr, magic[:]) == 4 && string(magic[:]) == "\x7fELF"
}

// dumpSegments: one segment per mapping, holding what dumpSize says.
func (s *Snapshot) dumpSegments() []loadSeg {
	filter := dumpFilter(s.dir)
	smaps := readSmaps(s.dir)
	segs := make([]loadSeg, 0, len(s.Maps))
	for _, m := range s.Maps {
		info, ok := smaps[m.Start]
		seg := loadSeg{addr: m.Start, memsz: m.End - m.Start, flags: progFlags(m),
			anonymous: !m.shared() && !m.fileBacked() && !strings.HasPrefix(m.Path, "[v")}
		seg.size = s.dumpSize(m, info, ok, filter)
		segs = append(segs, seg)
	}
	return segs
}

// WriteDump writes the process as an ELF core to w: registers of every
// thread (floating point ones too: Options.WhileStopped is where it is
// called, and a snapshot taken with it reads them) and the memory
// coredump_filter selects, read from the process as it is written. Call
// it while the process is stopped (from Options.WhileStopped), or the
// core is not one moment.
func (s *Snapshot) WriteDump(w io.Writer) error {
	return s.writeCore(w, s.dumpSegments(), int(unix.SIGSTOP))
}
