package elfx

import (
	"bytes"
	"debug/dwarf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"sync"
)

// dwz -m moves the DIEs and strings several files share into one
// supplementary file, which each names in .gnu_debugaltlink (a path and
// the supplementary file's build ID; DWARF 5's .debug_sup says the same).
// Their DIEs then refer into it with DW_FORM_GNU_ref_alt (DWARF 5:
// DW_FORM_ref_sup4/8) and name things with DW_FORM_GNU_strp_alt
// (DW_FORM_strp_sup): offsets in its .debug_info and .debug_str, which
// debug/dwarf gives as numbers. The supplementary file is found as gdb
// finds it: at the path given (relative to the file naming it), else by
// build ID under the debug directories, else under their .dwz/.

// altDWARF is a supplementary file's DWARF.
type altDWARF struct {
	obj  *Object
	d    *dwarf.Data
	str  []byte // its .debug_str
	name string

	mu  sync.Mutex
	cus []*cuIndex // its units, by offset; listed on first use
}

// altBase is added to a supplementary file's DIE offsets where they key
// the index's maps (names, scopes), apart from the main file's
// (dwarf.Offset has 32 bits: each file's .debug_info is taken to be
// below 2 GB).
const altBase dwarf.Offset = 1 << 31

// altLink reads the link to a supplementary file: .gnu_debugaltlink (a
// NUL-terminated path, then the build ID), else DWARF 5's .debug_sup
// (version 5, is_supplementary 0, a NUL-terminated path, a ULEB128
// length and that many bytes of checksum, which the supplementary
// file's own .debug_sup repeats).
// byBuildID says that id is a build ID (.gnu_debugaltlink's), by which
// the file may be fetched.
func (o *Object) altLink() (path, id string, byBuildID, ok bool) {
	if s := o.section(".gnu_debugaltlink"); s != nil {
		data, err := o.sectionData(s)
		if err != nil {
			return "", "", false, false
		}
		path, id, ok := parseAltLink(data)
		return path, id, true, ok
	}
	if s := o.section(".debug_sup"); s != nil {
		data, err := o.sectionData(s)
		if err != nil {
			return "", "", false, false
		}
		sup, path, sum, ok := parseDebugSup(data, o.ef.ByteOrder)
		return path, sum, false, ok && !sup && path != ""
	}
	return "", "", false, false
}

// parseAltLink parses .gnu_debugaltlink's contents.
func parseAltLink(data []byte) (path, buildID string, ok bool) {
	n := bytes.IndexByte(data, 0)
	if n <= 0 || n+1 >= len(data) {
		return "", "", false
	}
	return string(data[:n]), hex.EncodeToString(data[n+1:]), true
}

// parseDebugSup parses a .debug_sup section: whether the file is the
// supplementary one, the path of the supplementary file (empty in that
// file itself) and the checksum that identifies it.
func parseDebugSup(data []byte, order binary.ByteOrder) (supplementary bool, path, checksum string, ok bool) {
	if len(data) < 4 || order.Uint16(data) != 5 || data[2] > 1 {
		return false, "", "", false
	}
	rest := data[3:]
	n := bytes.IndexByte(rest, 0)
	if n < 0 {
		return false, "", "", false
	}
	path, rest = string(rest[:n]), rest[n+1:]
	size, k := binary.Uvarint(rest)
	if k <= 0 || size > uint64(len(rest)-k) {
		return false, "", "", false
	}
	return data[2] == 1, path, hex.EncodeToString(rest[k : k+int(size)]), true
}

// supIdentity is what a link to o as a supplementary file names it by:
// the checksum of its .debug_sup, else its build ID.
func (o *Object) supIdentity() string {
	if s := o.section(".debug_sup"); s != nil {
		if data, err := o.sectionData(s); err == nil {
			if sup, _, sum, ok := parseDebugSup(data, o.ef.ByteOrder); ok && sup {
				return sum
			}
		}
	}
	return o.buildID
}

// altCandidates lists where the supplementary file linked from the file
// at from may be, in the order tried.
func altCandidates(from, path, buildID string, debugDirs []string) []string {
	var out []string
	if filepath.IsAbs(path) {
		out = append(out, path)
	} else {
		out = append(out, filepath.Join(filepath.Dir(from), path))
	}
	if len(buildID) > 2 {
		for _, dir := range debugDirs {
			out = append(out, filepath.Join(dir, ".build-id", buildID[:2], buildID[2:]+".debug"))
		}
	}
	for _, dir := range debugDirs {
		out = append(out, filepath.Join(dir, ".dwz", filepath.Base(path)))
	}
	return out
}

// openAlt finds and opens the supplementary file src links to: nil when
// it links to none or none is found with the identity the link names.
// fetch (nil: none) fetches it by build ID (debuginfod serves dwz's
// files as the debug information of their build IDs) when it is nowhere
// here.
func openAlt(src *Object, debugDirs []string, fetch DebugFetcher) *altDWARF {
	path, id, byBuildID, ok := src.altLink()
	if !ok {
		return nil
	}
	for _, c := range altCandidates(src.name, path, id, debugDirs) {
		if a := openAltAt(c, src, id); a != nil {
			return a
		}
	}
	if fetch != nil && byBuildID {
		if c, err := fetch(id); err == nil {
			return openAltAt(c, src, id)
		}
	}
	return nil
}

// openAltAt opens the file at c as src's supplementary file, nil when it
// is not there, is src itself, or is not the file identified by id.
func openAltAt(c string, src *Object, id string) *altDWARF {
	if sameFile(c, src.name) {
		return nil
	}
	alt, err := Open(c)
	if err != nil {
		return nil
	}
	if alt.supIdentity() != id {
		alt.Close()
		return nil
	}
	d, err := alt.loadDWARF()
	if err != nil {
		alt.Close()
		return nil
	}
	str, err := alt.sectionsData([]string{".debug_str"})
	if err != nil {
		alt.Close()
		return nil
	}
	return &altDWARF{obj: alt, d: d, str: str[0], name: c}
}

// stringAt is the string at off in the supplementary file's .debug_str.
func (a *altDWARF) stringAt(off uint64) (string, bool) {
	if off >= uint64(len(a.str)) {
		return "", false
	}
	b := a.str[off:]
	n := bytes.IndexByte(b, 0)
	if n < 0 {
		return "", false
	}
	return string(b[:n]), true
}

// unitOf returns the supplementary file's unit holding the DIE at off.
func (a *altDWARF) unitOf(off uint64) (*cuIndex, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cus == nil {
		r := a.d.Reader()
		for {
			e, err := r.Next()
			if err != nil {
				return nil, fmt.Errorf("elfx: %s: reading DWARF units: %w", a.name, err)
			}
			if e == nil {
				break
			}
			r.SkipChildren()
			a.cus = append(a.cus, &cuIndex{off: e.Offset, d: a.d, entry: e, base: altBase})
		}
	}
	i := sort.Search(len(a.cus), func(i int) bool { return a.cus[i].off > dwarf.Offset(off) }) - 1
	if i < 0 {
		return nil, fmt.Errorf("elfx: %s: DIE %#x is in no unit", a.name, off)
	}
	return a.cus[i], nil
}

// stringAttr is e's string attribute a, e read from cu: one of its own
// strings, or one in the supplementary file (DW_FORM_GNU_strp_alt,
// DW_FORM_strp_sup, which debug/dwarf gives as offsets).
func (cu *cuIndex) stringAttr(e *dwarf.Entry, a dwarf.Attr) (string, bool) {
	f := e.AttrField(a)
	if f == nil {
		return "", false
	}
	var off uint64
	switch v := f.Val.(type) {
	case string:
		return v, true
	case int64: // DW_FORM_GNU_strp_alt
		if f.Class != dwarf.ClassStringAlt || v < 0 {
			return "", false
		}
		off = uint64(v)
	case uint64: // DW_FORM_strp_sup, 64-bit DWARF
		off = v
	case uint32:
		off = uint64(v)
	default:
		return "", false
	}
	if cu.alt == nil || (f.Class != dwarf.ClassString && f.Class != dwarf.ClassStringAlt) {
		return "", false
	}
	return cu.alt.stringAt(off)
}

// altRef resolves a reference into the supplementary file: the unit the
// DIE at off is in and its offset in that unit's dwarf.Data.
func (cu *cuIndex) altRef(off uint64) (*cuIndex, dwarf.Offset, bool) {
	if cu.alt == nil {
		return nil, 0, false
	}
	t, err := cu.alt.unitOf(off)
	if err != nil {
		return nil, 0, false
	}
	return t, dwarf.Offset(off), true
}

// withAltStrings returns the unit's top DIE with the strings the line
// reader takes from it (DW_AT_comp_dir, DW_AT_name) read from the
// supplementary file where they lie there.
func (cu *cuIndex) withAltStrings() *dwarf.Entry {
	e := cu.entry
	var out *dwarf.Entry
	for i, f := range e.Field {
		if f.Attr != dwarf.AttrCompDir && f.Attr != dwarf.AttrName {
			continue
		}
		if _, ok := f.Val.(string); ok {
			continue
		}
		if s, ok := cu.stringAttr(e, f.Attr); ok {
			if out == nil {
				c := *e
				c.Field = slices.Clone(e.Field)
				out = &c
			}
			out.Field[i] = dwarf.Field{Attr: f.Attr, Val: s, Class: dwarf.ClassString}
		}
	}
	if out == nil {
		return e
	}
	return out
}

// useAlt gives the index's units the supplementary file alt (nil: none).
func (x *dwarfIndex) useAlt(alt *altDWARF) {
	if alt == nil {
		return
	}
	x.alt = alt
	for _, cu := range x.cus {
		cu.alt = alt
	}
	if x.lazy != nil {
		x.lazy.unitsMu.Lock()
		x.lazy.alt = alt
		for _, cu := range x.lazy.units {
			cu.alt = alt
		}
		x.lazy.unitsMu.Unlock()
	}
}
