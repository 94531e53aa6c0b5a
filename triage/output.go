package triage

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
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
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteJSONLine writes one core's report (schema coreunwind.report/v1) as
// one line, with the extra field "bucket": the id of its bucket.
func WriteJSONLine(w io.Writer, r *report.Report, bucket string) error {
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
	out = strconv.AppendQuote(out, bucket)
	out = append(out, "}\n"...)
	_, err := w.Write(out)
	return err
}

// WriteText writes the buckets as a table for people, largest first, then
// the failures.
func WriteText(w io.Writer, s *Summary) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d cores: %d analyzed in %d buckets, %d failed\n\n", s.CoresTotal, s.CoresAnalyzed, len(s.Buckets), s.CoresFailed)
	if len(s.Buckets) > 0 {
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "BUCKET\tCOUNT\tSIGNAL\tEXECUTABLE\tSIGNATURE\tEXAMPLE CORE\tFIRST SEEN\tLAST SEEN")
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
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n", b.ID, b.Count, sig, exe,
				oneLine(b.Signature), b.ExampleCore, textTime(b.FirstSeen), textTime(b.LastSeen))
		}
		tw.Flush()
	}
	if len(s.Failures) > 0 {
		fmt.Fprintf(bw, "\nfailed:\n")
		for _, f := range s.Failures {
			fmt.Fprintf(bw, "  %s: %s\n", f.Core, oneLine(f.Error))
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

// oneLine keeps a table row on one line whatever a name contains.
func oneLine(s string) string {
	return strings.NewReplacer("\n", " ", "\t", " ", "\r", " ").Replace(s)
}
