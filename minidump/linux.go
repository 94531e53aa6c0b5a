package minidump

import (
	"strconv"
	"strings"
)

// LinuxInfo is what Breakpad's Linux streams hold: the process's /proc
// files as text or bytes, the auxiliary vector and the dynamic linker's
// link map.
type LinuxInfo struct {
	CPUInfo    string
	Status     string // /proc/PID/status
	LSBRelease string
	CmdLine    []string // /proc/PID/cmdline, split at NULs
	Environ    []string // /proc/PID/environ, split at NULs
	Auxv       []AuxEntry
	Maps       []MapsEntry // /proc/PID/maps
	DSODebug   *DSODebug
}

// AuxEntry is one auxiliary vector entry.
type AuxEntry struct{ Tag, Val uint64 }

// MapsEntry is one line of /proc/PID/maps.
type MapsEntry struct {
	Start, End uint64
	Perms      string // "r-xp"
	Offset     uint64
	Inode      uint64
	Path       string // "" for an anonymous mapping; "[stack]", "[vdso]", ...
}

// DSODebug is Breakpad's MDRawDebug: the dynamic linker's r_debug and its
// link map.
type DSODebug struct {
	Version uint32
	Brk     uint64
	LdBase  uint64
	Dynamic uint64
	Map     []LinkMapEntry
}

// LinkMapEntry is one link map entry: load bias, name, dynamic section.
type LinkMapEntry struct {
	Addr uint64
	Name string
	LD   uint64
}

// maxProcText bounds a /proc text stream that is parsed line by line.
const maxProcText = 16 << 20

func (d *Dump) readLinux() {
	text := func(t StreamType, into *string) {
		d.read(t, func(b []byte, _ uint64) error {
			*into = string(b)
			return nil
		})
	}
	text(LinuxCPUInfoStream, &d.Linux.CPUInfo)
	text(LinuxProcStatus, &d.Linux.Status)
	text(LinuxLSBRelease, &d.Linux.LSBRelease)
	d.read(LinuxCmdLine, func(b []byte, _ uint64) error { d.Linux.CmdLine = nulSplit(b); return nil })
	d.read(LinuxEnviron, func(b []byte, _ uint64) error { d.Linux.Environ = nulSplit(b); return nil })
	d.read(LinuxAuxv, d.readAuxv)
	d.read(LinuxMaps, func(b []byte, off uint64) error {
		if len(b) > maxProcText {
			return formatErr(off, "maps of %d bytes", len(b))
		}
		d.Linux.Maps = parseMaps(string(b))
		return nil
	})
	d.read(LinuxDSODebug, d.readDSODebug)
}

// nulSplit splits NUL-separated strings, dropping the last terminator.
func nulSplit(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// ptrSize is the dumped process's pointer size: the CPU's, else 8.
func (d *Dump) ptrSize() int {
	if d.System != nil && d.System.CPU.PtrSize() != 0 {
		return d.System.CPU.PtrSize()
	}
	return 8
}

func (d *Dump) readAuxv(b []byte, _ uint64) error {
	w := d.ptrSize()
	for ; len(b) >= 2*w; b = b[2*w:] {
		var e AuxEntry
		if w == 8 {
			e = AuxEntry{le.Uint64(b), le.Uint64(b[8:])}
		} else {
			e = AuxEntry{uint64(le.Uint32(b)), uint64(le.Uint32(b[4:]))}
		}
		if e.Tag == 0 {
			break
		}
		d.Linux.Auxv = append(d.Linux.Auxv, e)
	}
	return nil
}

// parseMaps reads /proc/PID/maps lines ("start-end perms offset dev inode
// path"); a malformed line is skipped.
func parseMaps(s string) []MapsEntry {
	var out []MapsEntry
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		off, err3 := strconv.ParseUint(f[2], 16, 64)
		inode, err4 := strconv.ParseUint(f[4], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || end < start {
			continue
		}
		e := MapsEntry{Start: start, End: end, Perms: f[1], Offset: off, Inode: inode}
		if len(f) > 5 {
			// The path is the rest of the line: it may hold spaces.
			e.Path = strings.TrimLeft(line[strings.Index(line, f[5]):], " ")
		}
		out = append(out, e)
	}
	return out
}

// readDSODebug reads MDRawDebug32 or MDRawDebug64 by the pointer size: the
// 64-bit layout has natural alignment (brk at 16), as Breakpad's x86_64
// and arm64 compilers lay it out.
func (d *Dump) readDSODebug(b []byte, off uint64) error {
	w := d.ptrSize()
	hsize, esize := 24, 12
	if w == 8 {
		hsize, esize = 40, 24
	}
	if len(b) < hsize {
		return formatErr(off, "%d bytes, want %d", len(b), hsize)
	}
	dd := &DSODebug{Version: le.Uint32(b)}
	mapRVA, count := le.Uint32(b[4:]), le.Uint32(b[8:])
	if w == 8 {
		dd.Brk, dd.LdBase, dd.Dynamic = le.Uint64(b[16:]), le.Uint64(b[24:]), le.Uint64(b[32:])
	} else {
		dd.Brk, dd.LdBase, dd.Dynamic = uint64(le.Uint32(b[12:])), uint64(le.Uint32(b[16:])), uint64(le.Uint32(b[20:]))
	}
	d.Linux.DSODebug = dd
	entries, ok := d.data.slice(uint64(mapRVA), uint64(count)*uint64(esize))
	if !ok {
		return formatErr(uint64(mapRVA), "link map of %d entries past the end of the file", count)
	}
	for i := 0; i < int(count); i++ {
		e := entries[i*esize:]
		var lm LinkMapEntry
		var nameRVA uint32
		if w == 8 {
			lm.Addr, nameRVA, lm.LD = le.Uint64(e), le.Uint32(e[8:]), le.Uint64(e[16:])
		} else {
			lm.Addr, nameRVA, lm.LD = uint64(le.Uint32(e)), le.Uint32(e[4:]), uint64(le.Uint32(e[8:]))
		}
		if nameRVA != 0 {
			name, err := d.data.utf16String(nameRVA)
			if err != nil {
				d.warnf("%v: entry %d: name: %v", LinuxDSODebug, i, err)
			}
			lm.Name = name
		}
		dd.Map = append(dd.Map, lm)
	}
	return nil
}
