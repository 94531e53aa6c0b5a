package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/triage"
)

// writeEvaluation writes `triage eval`'s result, text or JSON. Exit code
// 0 however good the buckets are (the figures are the result), 2 when no
// labelled core was analyzed.
func writeEvaluation(ev *triage.Evaluation, format string, w io.Writer, closeOut func(error) error, stderr io.Writer) int {
	var err error
	if format == "json" {
		var b []byte
		if b, err = json.MarshalIndent(ev, "", "  "); err == nil {
			_, err = w.Write(append(b, '\n'))
		}
	} else {
		err = triage.WriteEvaluation(w, ev)
	}
	if err = closeOut(err); err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		return exitcode.Output
	}
	if ev.Cores == 0 {
		fmt.Fprintln(stderr, "coreunwind: triage eval: no labelled core was analyzed")
		return exitcode.NoCore
	}
	return exitcode.OK
}
