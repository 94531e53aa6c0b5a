// Package schematest checks JSON output against the example in a schema
// document (report-json.md, tables-json.md, triage-json.md): the same
// keys at every level, and values of the same kind — "0x" hex strings
// where the example has an address, numbers where it has a number. The
// documents are the contracts; this keeps the code from drifting away
// from them. Tests only.
package schematest

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// Mode says how strictly key sets are compared.
type Mode int

const (
	// Exact: every object has exactly the example's keys.
	Exact Mode = iota
	// Subset: every key must be in the example (the example shows the
	// union of several architectures' fields) or be one of the optional
	// keys (fields the document specifies in prose), and the example's
	// keys not named optional must be present.
	Subset
)

var (
	comment = regexp.MustCompile(`(?m)\s+//.*$`)
	hexStr  = regexp.MustCompile(`^0x[0-9a-f]+$`)
)

// Example returns the first ```json block of the document at path,
// comments removed, decoded.
func Example(t *testing.T, path string) any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "```json\n")
	if start < 0 {
		t.Fatalf("%s: no ```json block", path)
	}
	doc = doc[start+len("```json\n"):]
	end := strings.Index(doc, "```")
	if end < 0 {
		t.Fatalf("%s: unterminated ```json block", path)
	}
	var v any
	if err := json.Unmarshal([]byte(comment.ReplaceAllString(doc[:end], "")), &v); err != nil {
		t.Fatalf("%s: the example is not JSON: %v", path, err)
	}
	return v
}

// Check compares got (JSON) with the example; optional lists keys that
// may be absent in Subset mode.
func Check(t *testing.T, example any, got []byte, mode Mode, optional ...string) {
	t.Helper()
	var v any
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	opt := map[string]bool{}
	for _, k := range optional {
		opt[k] = true
	}
	compare(t, "$", example, v, mode, opt)
}

func compare(t *testing.T, at string, want, got any, mode Mode, opt map[string]bool) {
	t.Helper()
	if got == nil {
		return // unknown is null: allowed anywhere
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			t.Errorf("%s: %T, the schema has an object", at, got)
			return
		}
		for k := range g {
			if _, ok := w[k]; !ok && !(mode == Subset && opt[k]) {
				t.Errorf("%s: key %q is not in the schema", at, k)
			}
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				if mode == Exact || !opt[k] {
					t.Errorf("%s: key %q missing", at, k)
				}
				continue
			}
			compare(t, at+"."+k, wv, gv, mode, opt)
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			t.Errorf("%s: %T, the schema has a list", at, got)
			return
		}
		if len(w) == 0 {
			return
		}
		for i, gv := range g {
			compare(t, at+"[]", w[0], gv, mode, opt)
			if i > 50 {
				break // the shape, not every element
			}
		}
	case string:
		s, ok := got.(string)
		if !ok {
			t.Errorf("%s: %T %v, the schema has a string", at, got, got)
			return
		}
		if hexStr.MatchString(w) && !hexStr.MatchString(s) {
			t.Errorf("%s: %q, the schema has a lower-case 0x hex string", at, s)
		}
	case float64:
		if _, ok := got.(float64); !ok {
			t.Errorf("%s: %T %v, the schema has a number", at, got, got)
		}
	case bool:
		if _, ok := got.(bool); !ok {
			t.Errorf("%s: %T %v, the schema has a boolean", at, got, got)
		}
	}
}
