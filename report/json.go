package report

import (
	"encoding/json"
	"io"
	"strconv"
)

// MarshalJSON writes an address as a lower-case "0x" hex string: JSON
// numbers lose precision past 2^53.
func (h Hex) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 20)
	b = append(b, '"', '0', 'x')
	b = strconv.AppendUint(b, uint64(h), 16)
	return append(b, '"'), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (h *Hex) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return err
	}
	*h = Hex(v)
	return nil
}

// WriteJSON writes r as one indented JSON object, exactly as
// encoding/json would (see jsonenc.go).
func WriteJSON(w io.Writer, r *Report) error {
	fixNil(r)
	// Made once at the size a flush leaves it (the buffer fills to
	// jsonFlushAt and one frame more): grown from a guess by appending,
	// it left each smaller copy behind in fresh pages. Pages of it never
	// written are never touched.
	e := jsonEnc{b: make([]byte, 0, jsonFlushAt+jsonFlushAt/4), w: w}
	e.report(r)
	e.b = append(e.b, '\n')
	if e.err != nil {
		return e.err
	}
	_, err := w.Write(e.b)
	return err
}

// WriteJSONLine writes r as one line (the jsonl format).
func WriteJSONLine(w io.Writer, r *Report) error {
	fixNil(r)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // as WriteJSON: C++ names keep their <>&
	return enc.Encode(r)
}

// fixNil makes empty lists print as [] rather than null: the schema's
// lists are always present.
func fixNil(r *Report) {
	if r.Schema == "" {
		r.Schema = Schema
	}
	if r.Modules == nil {
		r.Modules = []Module{}
	}
	if r.Threads == nil {
		r.Threads = []Thread{}
	}
	if r.Mappings == nil {
		r.Mappings = []Mapping{}
	}
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	if r.Core.Annotations == nil {
		r.Core.Annotations = []Annotation{}
	}
	for i := range r.Threads {
		if r.Threads[i].Frames == nil {
			r.Threads[i].Frames = []Frame{}
		}
	}
	for i := range r.Goroutines {
		if r.Goroutines[i].Frames == nil {
			r.Goroutines[i].Frames = []Frame{}
		}
	}
}
