package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// report mirrors the parts of the coreunwind.report/v1 JSON schema
// (shared/docs/report-json.md) these tests check. It is our own copy on
// purpose: the tests hold the command to the documented contract, not to
// whatever the report package happens to emit.
type report struct {
	Schema string `json:"schema"`
	Core   struct {
		Path       string  `json:"path"`
		Format     string  `json:"format"`
		Arch       string  `json:"arch"`
		PtrSize    int     `json:"pointer_size"`
		Executable string  `json:"executable"`
		PID        int     `json:"pid"`
		Signal     *signal `json:"signal"`
		CrashedTID int     `json:"crashed_tid"`
	} `json:"core"`
	Crash *struct {
		Summary string   `json:"summary"`
		Details []string `json:"details"`
	} `json:"crash"`
	Modules    []module          `json:"modules"`
	Threads    []reportThread    `json:"threads"`
	Goroutines []reportGoroutine `json:"goroutines"`
	Python     *struct {
		Version string `json:"version"`
	} `json:"python"`
	Warnings []string `json:"warnings"`
}

type reportGoroutine struct {
	ID      uint64        `json:"id"`
	State   string        `json:"state"`
	Crashed bool          `json:"crashed"`
	TID     *int          `json:"tid"`
	Frames  []reportFrame `json:"frames"`
	Error   *string       `json:"error"`
}

type signal struct {
	Number  int     `json:"number"`
	Name    string  `json:"name"`
	Code    int     `json:"code"`
	Address *string `json:"address"`
}

type module struct {
	Path      string `json:"path"`
	BuildID   string `json:"build_id"`
	Start     string `json:"start"`
	End       string `json:"end"`
	Found     bool   `json:"found"`
	DebugFile string `json:"debug_file"`
}

type reportThread struct {
	TID       int           `json:"tid"`
	Name      string        `json:"name"`
	Crashed   bool          `json:"crashed"`
	Frames    []reportFrame `json:"frames"`
	Truncated bool          `json:"truncated"`
	Error     *string       `json:"error"`
	Python    *struct {
		ThreadID  string `json:"thread_id"`
		HoldsGIL  bool   `json:"holds_gil"`
		Exception *struct {
			Type    string  `json:"type"`
			Message *string `json:"message"`
			Handled bool    `json:"handled"`
		} `json:"exception"`
		Error *string `json:"error"`
	} `json:"python"`
}

type reportFrame struct {
	Index    int    `json:"index"`
	PC       string `json:"pc"`
	SP       string `json:"sp"`
	Trust    string `json:"trust"`
	Module   string `json:"module"`
	Function string `json:"function"`
	// FunctionOffset is "" where the report has null.
	FunctionOffset string `json:"function_offset"`
	File           string `json:"file"`
	Line           int    `json:"line"`
	Inlined        bool   `json:"inlined"`
	// Language is native or python.
	Language string `json:"language"`
}

// pc returns the frame's pc as a number; ok is false when it is not the
// documented lower-case 0x-prefixed hex string.
func (f reportFrame) pc() (uint64, bool) {
	return parseHex(f.PC)
}

func parseHex(s string) (uint64, bool) {
	if !strings.HasPrefix(s, "0x") || strings.ToLower(s) != s {
		return 0, false
	}
	v, err := strconv.ParseUint(s[2:], 16, 64)
	return v, err == nil
}

func (f reportFrame) String() string {
	s := fmt.Sprintf("#%d pc=%s sp=%s trust=%s %s", f.Index, f.PC, f.SP, f.Trust, f.Function)
	if f.Inlined {
		s += " [inlined]"
	}
	if f.File != "" {
		s += fmt.Sprintf(" at %s:%d", f.File, f.Line)
	}
	if f.Module != "" {
		s += " in " + f.Module
	}
	return s
}

func (r *report) thread(tid int) *reportThread {
	for i := range r.Threads {
		if r.Threads[i].TID == tid {
			return &r.Threads[i]
		}
	}
	return nil
}

// A run is one execution of the coreunwind command.
type run struct {
	Args   []string
	Stdout string
	Stderr string
	Code   int // exit code; -1 when killed by a signal
}

// Exit codes of coreunwind, from its documented command line contract.
const (
	exitOK       = 0
	exitUsage    = 1
	exitNoCore   = 2
	exitPartial  = 3
	runTimeLimit = 60 * time.Second
)

// runCoreunwind runs the command with a time limit. A hang, a death by
// signal or a Go panic (seen on stderr) fails the test: bad input must give
// an error, never a crash.
func runCoreunwind(t *testing.T, args ...string) run {
	t.Helper()
	return runCoreunwindEnv(t, nil, args...)
}

// runCoreunwindEnv is runCoreunwind with env entries added to the
// environment.
func runCoreunwindEnv(t *testing.T, env []string, args ...string) run {
	t.Helper()
	needCoreunwind(t)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, coreunwindBin, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := run{Args: args, Stdout: stdout.String(), Stderr: stderr.String()}
	if ctx.Err() != nil {
		t.Fatalf("coreunwind %s: no result within %v (hang?)", strings.Join(args, " "), runTimeLimit)
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		r.Code = exitErr.ExitCode()
	default:
		t.Fatalf("coreunwind %s: %v", strings.Join(args, " "), err)
	}
	if r.Code < 0 {
		t.Fatalf("coreunwind %s: killed by a signal (%v); stderr:\n%s", strings.Join(args, " "), err, truncate(r.Stderr, 4000))
	}
	if strings.Contains(r.Stderr, "panic:") || strings.Contains(r.Stderr, "goroutine ") {
		t.Fatalf("coreunwind %s panicked (exit %d):\n%s", strings.Join(args, " "), r.Code, truncate(r.Stderr, 4000))
	}
	return r
}

// unwindJSON runs coreunwind --format json on a core and decodes the
// report. Exit codes other than 0 (report written) and 3 (partial) fail.
func unwindJSON(t *testing.T, flags []string, core string, exe ...string) (*report, run) {
	t.Helper()
	args := append([]string{"--format", "json"}, flags...)
	args = append(args, core)
	args = append(args, exe...)
	r := runCoreunwind(t, args...)
	if r.Code != exitOK && r.Code != exitPartial {
		t.Fatalf("coreunwind %s: exit code %d, want 0 or 3; stderr:\n%s", strings.Join(args, " "), r.Code, truncate(r.Stderr, 4000))
	}
	rep, err := decodeReport(r.Stdout)
	if err != nil {
		t.Fatalf("coreunwind %s: %v; stdout starts:\n%s", strings.Join(args, " "), err, truncate(r.Stdout, 2000))
	}
	return rep, r
}

// decodeReport decodes one report and checks the contract's invariants that
// hold for every report: the schema string and hex-string addresses.
func decodeReport(s string) (*report, error) {
	var rep report
	dec := json.NewDecoder(strings.NewReader(s))
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("decoding JSON report: %w", err)
	}
	if rep.Schema != "coreunwind.report/v1" {
		return nil, fmt.Errorf("schema is %q, want coreunwind.report/v1", rep.Schema)
	}
	for _, th := range rep.Threads {
		for i, f := range th.Frames {
			if _, ok := f.pc(); !ok {
				return nil, fmt.Errorf("thread %d frame %d: pc %q is not lower-case 0x hex", th.TID, i, f.PC)
			}
			if f.Index != i {
				return nil, fmt.Errorf("thread %d frame %d has index %d", th.TID, i, f.Index)
			}
		}
	}
	return &rep, nil
}
