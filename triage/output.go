package triage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/coreunwind/coreunwind/report"
)

// WriteJSON writes s as one indented JSON object.
func WriteJSON(w io.Writer, s *Summary) error {
	if s.Buckets == nil {
		s.Buckets = []*Bucket{}
	}
	if s.Failures == nil {
		s.Failures = []Failure{}
	}
	if s.Partial == nil {
		s.Partial = []PartialCore{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // as report.WriteJSON: signatures keep C++'s <>&
	return enc.Encode(s)
}

// WriteJSONLine writes one core's report (schema coreunwind.report/v1) as
// one line, with the extra fields "bucket": the id of its bucket (null:
// none, a partial core not bucketed), and "partial": why the core is
// partial (null: it is not).
func WriteJSONLine(w io.Writer, r *report.Report, bucket, partial string) error {
	var buf bytes.Buffer
	if err := report.WriteJSONLine(&buf, r); err != nil {
		return err
	}
	line := bytes.TrimRight(buf.Bytes(), "\n")
	if len(line) < 2 || line[len(line)-1] != '}' {
		return fmt.Errorf("jsonl: unexpected report encoding")
	}
	out := make([]byte, 0, len(line)+32)
	out = append(out, line[:len(line)-1]...)
	out = append(out, `,"bucket":`...)
	out = appendStringOrNull(out, bucket)
	out = append(out, `,"partial":`...)
	out = appendStringOrNull(out, partial)
	out = append(out, "}\n"...)
	_, err := w.Write(out)
	return err
}

// appendStringOrNull appends v as a JSON string, "" as null. (Go's
// quoting is not JSON's: it writes \x1b and \xff, which JSON has not.)
func appendStringOrNull(out []byte, v string) []byte {
	if v == "" {
		return append(out, "null"...)
	}
	b, err := json.Marshal(v)
	if err != nil { // a string always marshals
		panic(err)
	}
	return append(out, b...)
}

// WriteText writes the buckets as a table for people, largest first, then
// the partial cores and the failures.
func WriteText(w io.Writer, s *Summary) error {
	return WriteTextWidth(w, s, 0)
}

// WriteTextWidth is WriteText with the buckets table fitted to width
// columns (0: no limit; see texttable.go).
func WriteTextWidth(w io.Writer, s *Summary, width int) error {
	bw := bufio.NewWriter(w)
	partial := ""
	if s.CoresPartial > 0 {
		how := "not bucketed"
		if s.PartialBucketed {
			how = "bucketed"
		}
		partial = fmt.Sprintf(" (%d partial, %s)", s.CoresPartial, how)
	}
	fmt.Fprintf(bw, "%d cores: %d analyzed%s in %d buckets, %d failed\n\n", s.CoresTotal, s.CoresAnalyzed, partial, len(s.Buckets), s.CoresFailed)
	if len(s.Buckets) > 0 {
		cols := []column{
			{header: "BUCKET"},
			{header: "COUNT"},
			{header: "SIGNAL"},
			{header: "EXECUTABLE", min: 16, cutStart: true, drop: 4},
			{header: "SIGNATURE", min: 24, cutLast: true},
			{header: "EXAMPLE CORE", min: 16, cutStart: true, drop: 3},
			{header: "FIRST SEEN", drop: 1},
			{header: "LAST SEEN", drop: 2},
		}
		for _, b := range s.Buckets {
			sig := "-"
			if b.Signal != nil {
				sig = *b.Signal
			}
			exe := "-"
			if len(b.Executables) > 0 {
				exe = b.Executables[0]
				if len(b.Executables) > 1 {
					exe += fmt.Sprintf(" (+%d)", len(b.Executables)-1)
				}
			}
			count := fmt.Sprint(b.Count)
			switch {
			case b.PartialCount > 0 && s.PartialBucketed:
				count += fmt.Sprintf(" (%d partial)", b.PartialCount)
			case b.PartialCount > 0:
				count += fmt.Sprintf(" (+%d partial)", b.PartialCount)
			}
			for i, cell := range []string{b.ID, count, oneLine(sig), oneLine(exe), oneLine(b.Signature), oneLine(b.ExampleCore), textTime(b.FirstSeen), textTime(b.LastSeen)} {
				cols[i].cells = append(cols[i].cells, cell)
			}
		}
		writeTable(bw, cols, width)
	}
	writeSimilar(bw, s)
	if len(s.Partial) > 0 {
		fmt.Fprintf(bw, "\npartial:\n")
		for _, p := range s.Partial {
			where := "in no bucket"
			switch {
			case p.Bucket != nil && s.PartialBucketed:
				where = "bucket " + *p.Bucket
			case p.Bucket != nil:
				where = "matches bucket " + *p.Bucket
			}
			fmt.Fprintf(bw, "  %s: %s (signature %s; %s)\n", oneLine(p.Core), oneLine(p.Reason), oneLine(p.Signature), where)
		}
	}
	if len(s.Failures) > 0 {
		fmt.Fprintf(bw, "\nfailed:\n")
		for _, f := range s.Failures {
			fmt.Fprintf(bw, "  %s: %s\n", oneLine(f.Core), oneLine(f.Error))
		}
	}
	return bw.Flush()
}

func textTime(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// oneLine keeps a table row on one line and in its columns whatever a
// name contains: line breaks and tabs (of joined errors) as spaces, the
// rest printable (report.Printable: no terminal escapes, bytes that are
// not UTF-8 escaped).
func oneLine(s string) string {
	return report.Printable(strings.NewReplacer("\n", " ", "\t", " ", "\r", " ").Replace(s))
}

// WriteProblems writes the failures and partial cores one a line, as
// messages for stderr: what the outputs without a summary (jsonl, pprof)
// leave unsaid.
func WriteProblems(w io.Writer, s *Summary) {
	for _, f := range s.Failures {
		fmt.Fprintf(w, "coreunwind: %s: %s\n", oneLine(f.Core), oneLine(f.Error))
	}
	for _, p := range s.Partial {
		fmt.Fprintf(w, "coreunwind: %s: partial: %s\n", oneLine(p.Core), oneLine(p.Reason))
	}
}
