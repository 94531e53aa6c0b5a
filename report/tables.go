package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// TablesSchema is the JSON schema string of a Tables document.
const TablesSchema = "coreunwind.tables/v1"

// Tables is `coreunwind tables FILE`: a binary's unwind table (schema
// coreunwind.tables/v1, tables-json.md beside this file).
type Tables struct {
	Schema    string       `json:"schema"`
	File      string       `json:"file"`
	Arch      string       `json:"arch"`
	ByteOrder string       `json:"byte_order"`
	Section   string       `json:"section"`
	Entries   []TableEntry `json:"entries"`
	Warnings  []string     `json:"warnings"`
}

// TableEntry is one FDE or unwind-table entry.
type TableEntry struct {
	Start    Hex     `json:"start"`
	End      Hex     `json:"end"`
	Function *string `json:"function"`

	// IA-64: the unwind info block.
	InfoOffset *Hex     `json:"info_offset,omitempty"`
	Version    *int     `json:"version,omitempty"`
	Flags      []string `json:"flags,omitempty"`
	Length     *int     `json:"length,omitempty"`

	// Records: IA-64 descriptors as readelf -u prints them; x86_64 CFI
	// rows as readelf --debug-dump=frames-interp shows them.
	Records        []string `json:"records,omitempty"`
	PaddingRecords *int     `json:"padding_records,omitempty"`

	// PA-RISC: the set flags by readelf's names, then the frame size.
	Descriptor []string `json:"descriptor,omitempty"`

	// ARM EHABI (.ARM.exidx): the index entry's second word as stored;
	// the .ARM.extab entry it points to; EXIDX_CANTUNWIND; the compact
	// model's personality routine index (0, 1, 2), absent for a generic
	// personality (then Personality is its address). Records are the
	// unwind opcodes.
	ExidxWord        *Hex `json:"exidx_word,omitempty"`
	Extab            *Hex `json:"extab,omitempty"`
	CantUnwind       bool `json:"cantunwind,omitempty"`
	PersonalityIndex *int `json:"personality_index,omitempty"`

	Handler     *Hex `json:"handler"`
	Personality *Hex `json:"personality"`
}

// WriteTablesJSON writes t as one indented JSON object.
func WriteTablesJSON(w io.Writer, t *Tables) error {
	t.Schema = TablesSchema
	if t.Entries == nil {
		t.Entries = []TableEntry{}
	}
	if t.Warnings == nil {
		t.Warnings = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // as WriteJSON: C++ names keep their <>&
	return enc.Encode(t)
}

// WriteTablesText writes t for people: one block per entry, its rows
// indented, as readelf's frames-interp lays them out.
func WriteTablesText(w io.Writer, t *Tables) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s: %s (%s, %s-endian): %d entries\n", Printable(t.File), Printable(t.Section), t.Arch, t.ByteOrder, len(t.Entries))
	for _, e := range t.Entries {
		fmt.Fprintf(bw, "\n%#x..%#x", uint64(e.Start), uint64(e.End))
		if e.Function != nil {
			fmt.Fprintf(bw, " %s", Printable(*e.Function))
		}
		bw.WriteByte('\n')
		if len(e.Descriptor) > 0 {
			fmt.Fprintf(bw, "  %s\n", strings.Join(e.Descriptor, " "))
		}
		switch {
		case e.CantUnwind:
			fmt.Fprintf(bw, "  [cantunwind]\n")
		case e.PersonalityIndex != nil:
			fmt.Fprintf(bw, "  Compact model index: %d\n", *e.PersonalityIndex)
		case e.ExidxWord != nil && e.Personality != nil:
			fmt.Fprintf(bw, "  Personality routine: %#x\n", uint64(*e.Personality))
		}
		for _, r := range e.Records {
			fmt.Fprintf(bw, "  %s\n", r)
		}
	}
	for _, w := range t.Warnings {
		fmt.Fprintf(bw, "warning: %s\n", Printable(w))
	}
	return bw.Flush()
}
