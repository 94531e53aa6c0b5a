package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/triage"
)

// explainJSON is one core's explanation in --format json.
type explainJSON struct {
	Core             string                 `json:"core"`
	SignatureVersion int                    `json:"signature_version"`
	Bucket           string                 `json:"bucket"`
	Signature        string                 `json:"signature"`
	Program          string                 `json:"program"`
	Signal           string                 `json:"signal"`
	CrashWords       string                 `json:"crash_words"`
	WordsReplaced    bool                   `json:"crash_words_replace_frames"`
	FingerprintLine  int                    `json:"fingerprint_line"`
	Frames           []triage.FrameDecision `json:"frames"`
}

// runExplain is `triage --explain CORE`: how the core's signature was
// made, frame by frame. A core that cannot be analyzed is exit code 2.
func runExplain(core string, cfg triage.Config, format string, w io.Writer, stderr io.Writer) int {
	code := exitcode.OK
	var writeErr error
	err := triage.Run([]string{core}, cfg, func(r *triage.Result) {
		if r.Err != nil {
			fmt.Fprintf(stderr, "coreunwind: %v\n", r.Err)
			code = exitcode.NoCore
			return
		}
		e := cfg.Signer.Explain(r.Report)
		if writeErr != nil {
			return
		}
		if format == "json" {
			b, err := json.MarshalIndent(explainJSON{Core: r.Input.Name, SignatureVersion: triage.SignatureVersion,
				Bucket: e.Sig.ID, Signature: e.Sig.Text, Program: e.Sig.Program, Signal: e.Sig.Signal,
				CrashWords: e.Words, WordsReplaced: e.Replaced, FingerprintLine: e.Sig.Fingerprint, Frames: e.Frames}, "", "  ")
			if err == nil {
				_, err = w.Write(append(b, '\n'))
			}
			writeErr = err
			return
		}
		writeErr = triage.WriteExplanation(w, r.Input.Name, e)
	})
	if err != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", err)
		return exitcode.NoCore
	}
	if writeErr != nil {
		fmt.Fprintf(stderr, "coreunwind: %v\n", writeErr)
		return exitcode.Output
	}
	return code
}
