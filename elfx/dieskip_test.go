package elfx

import (
	"debug/dwarf"
	"encoding/binary"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzRawDIEs reads hostile .debug_info and .debug_abbrev bytes DIE by
// DIE as the path to a DIE is walked (dieskip.go): no panic, every step
// forward, and where debug/dwarf reads the first unit too, the same DIEs
// (offsets, tags, children) in the same order. Seeded with the sections
// of the units program built with -flto when g++ is there.
func FuzzRawDIEs(f *testing.F) {
	// A unit whose top DIE (DW_TAG_compile_unit, children) holds one
	// DW_TAG_subprogram with DW_AT_sibling (ref4) and DW_AT_name (string).
	abbrev := []byte{1, 0x11, 1, 0, 0, 2, 0x2e, 0, 0x01, 0x13, 0x03, 0x08, 0, 0, 0}
	info := []byte{0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 1, 2, 0, 0, 0, 0, 'f', 0, 0}
	binary.LittleEndian.PutUint32(info, uint32(len(info)-4))
	binary.LittleEndian.PutUint32(info[13:], 19)
	f.Add(info, abbrev)
	if _, err := exec.LookPath("g++"); err == nil {
		src := filepath.Join("..", "e2e", "testdata", "progs")
		exe := filepath.Join(f.TempDir(), "units")
		args := []string{"-O2", "-g", "-flto", "-o", exe}
		for _, s := range []string{"units_main.cc", "units_walk.cc", "units_leaf.cc"} {
			args = append(args, filepath.Join(src, s))
		}
		if exec.Command("g++", args...).Run() == nil {
			if o, err := Open(exe); err == nil {
				if sec, err := o.sectionsData([]string{".debug_info", ".debug_abbrev"}); err == nil && len(sec[0]) > 0 {
					f.Add(slices.Clone(sec[0]), slices.Clone(sec[1]))
				}
				o.Close()
			}
		}
	}
	f.Fuzz(func(t *testing.T, info, abbrev []byte) {
		stream := func(name string, b []byte) *sectionStream {
			return &sectionStream{name: name, buf: b, done: len(b)}
		}
		l := &lazyDWARF{name: "fuzz", order: binary.LittleEndian, info: stream(".debug_info", info), abbrev: stream(".debug_abbrev", abbrev)}
		h, err := l.readUnitHeader(0)
		if err != nil || h.abbrevOff >= uint64(len(abbrev)) {
			return
		}
		decls, ok := parseAbbrevDecls(abbrev[h.abbrevOff:])
		if !ok {
			return
		}
		type die struct {
			off      uint64
			tag      dwarf.Tag
			children bool
		}
		type step struct {
			d     rawDIE
			after uint64
			depth int
		}
		var raw []die
		var steps []step
		r := newRawDIEs(info, 0, h, decls, binary.LittleEndian)
		depth := 0
		for {
			at := r.p
			d, ok := r.next()
			if !ok {
				break
			}
			if r.p <= at {
				t.Fatalf("DIE at %#x: no step forward", at)
			}
			steps = append(steps, step{d, r.p, depth})
			if d.decl == nil {
				raw = append(raw, die{off: d.at})
				depth--
				continue
			}
			raw = append(raw, die{d.at, d.decl.tag, d.decl.children})
			if d.decl.children {
				depth++
			}
		}
		// Skipping a DIE's children goes forward, and where no DIE has
		// DW_AT_sibling (a hostile one may point anywhere ahead) lands
		// where its next sibling was read.
		siblings := false
		for _, s := range steps {
			siblings = siblings || s.d.sibling != 0
		}
		for i, s := range steps {
			if s.d.decl == nil || !s.d.decl.children {
				continue
			}
			skip := *r
			skip.p = s.after
			if !skip.skipChildren(s.d) {
				continue
			}
			if skip.p <= s.d.at {
				t.Fatalf("skipping the children of %#x went back to %#x", s.d.at, skip.p)
			}
			if siblings {
				continue
			}
			// The next entry at its depth: its sibling, or the null
			// entry that ends its parent's children.
			for _, n := range steps[i+1:] {
				if n.depth == s.depth {
					if n.d.at != skip.p {
						t.Fatalf("skipping the children of %#x landed at %#x, the next entry at its depth is at %#x", s.d.at, skip.p, n.d.at)
					}
					break
				}
			}
		}
		d, err := dwarf.New(abbrev, nil, nil, info[:h.end], nil, nil, nil, nil)
		if err != nil {
			return
		}
		dr := d.Reader()
		for i, want := range raw {
			e, err := dr.Next()
			if err != nil || e == nil {
				return // debug/dwarf stops where the raw reader goes on: its forms are checked more
			}
			got := die{uint64(e.Offset), e.Tag, e.Children}
			if e.Tag == 0 {
				got = die{off: want.off} // null entries carry no offset
			}
			if got != want {
				t.Fatalf("DIE %d: raw %+v, debug/dwarf %+v", i, want, got)
			}
		}
	})
}
