package minidump

import "fmt"

// CrashpadInfo is Crashpad's MinidumpCrashpadInfo: the report and client
// ids and the annotations, process-wide and per module.
type CrashpadInfo struct {
	Version  uint32
	ReportID [16]byte
	ClientID [16]byte
	// Annotations are the process's simple annotations (key, value).
	Annotations []Annotation
	// Modules are the modules' annotations, by module list index.
	Modules []ModuleAnnotations
}

// Annotation is one key/value pair.
type Annotation struct{ Key, Value string }

// ModuleAnnotations is MinidumpModuleCrashpadInfo: one module's list
// annotations (plain strings) and simple annotations (key/value).
type ModuleAnnotations struct {
	ModuleIndex uint32
	List        []string
	Simple      []Annotation
}

const (
	crashpadInfoSize = 52
	// maxAnnotations bounds the annotations read from one dictionary or
	// list: Crashpad keeps a few dozen.
	maxAnnotations = 4096
)

func (d *Dump) readCrashpadInfo(b []byte, off uint64) error {
	if len(b) < crashpadInfoSize {
		return formatErr(off, "%d bytes, want %d", len(b), crashpadInfoSize)
	}
	ci := &CrashpadInfo{Version: le.Uint32(b)}
	copy(ci.ReportID[:], b[4:20])
	copy(ci.ClientID[:], b[20:36])
	d.Crashpad = ci
	var err error
	if ci.Annotations, err = d.simpleDictionary(locationAt(b[36:])); err != nil {
		return fmt.Errorf("simple annotations: %w", err)
	}
	loc := locationAt(b[44:])
	if loc.Size == 0 {
		return nil
	}
	lb, err := d.data.bytes(loc)
	if err != nil {
		return fmt.Errorf("module list: %w", err)
	}
	const linkSize = 12
	links, n, err := list(lb, uint64(loc.RVA), 4, linkSize)
	for i := 0; i < min(n, maxAnnotations); i++ {
		l := links[i*linkSize:]
		ma, merr := d.moduleAnnotations(le.Uint32(l), locationAt(l[4:]))
		if merr != nil {
			d.warnf("%v: module %d: %v", CrashpadInfoStream, le.Uint32(l), merr)
		}
		ci.Modules = append(ci.Modules, ma)
	}
	return err
}

// moduleAnnotations reads MinidumpModuleCrashpadInfo: version, then the
// locations of its list annotations and simple annotations.
func (d *Dump) moduleAnnotations(index uint32, loc location) (ModuleAnnotations, error) {
	ma := ModuleAnnotations{ModuleIndex: index}
	b, err := d.data.bytes(loc)
	if err != nil {
		return ma, err
	}
	if len(b) < 20 {
		return ma, formatErr(uint64(loc.RVA), "%d bytes, want 20", len(b))
	}
	if l := locationAt(b[4:]); l.Size > 0 {
		lb, err := d.data.bytes(l)
		if err != nil {
			return ma, fmt.Errorf("list annotations: %w", err)
		}
		rvas, n, err := list(lb, uint64(l.RVA), 4, 4)
		for i := 0; i < min(n, maxAnnotations); i++ {
			s, serr := d.data.utf8String(le.Uint32(rvas[4*i:]))
			if serr != nil {
				return ma, fmt.Errorf("list annotation %d: %w", i, serr)
			}
			ma.List = append(ma.List, s)
		}
		if err != nil {
			return ma, fmt.Errorf("list annotations: %w", err)
		}
	}
	ma.Simple, err = d.simpleDictionary(locationAt(b[12:]))
	return ma, err
}

// simpleDictionary reads MinidumpSimpleStringDictionary: a count, then
// (key RVA, value RVA) pairs of UTF-8 strings.
func (d *Dump) simpleDictionary(loc location) ([]Annotation, error) {
	if loc.Size == 0 {
		return nil, nil
	}
	b, err := d.data.bytes(loc)
	if err != nil {
		return nil, err
	}
	entries, n, err := list(b, uint64(loc.RVA), 4, 8)
	var out []Annotation
	for i := 0; i < min(n, maxAnnotations); i++ {
		k, kerr := d.data.utf8String(le.Uint32(entries[8*i:]))
		v, verr := d.data.utf8String(le.Uint32(entries[8*i+4:]))
		if kerr != nil || verr != nil {
			return out, fmt.Errorf("entry %d: %w", i, firstErr(kerr, verr))
		}
		out = append(out, Annotation{k, v})
	}
	return out, err
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
