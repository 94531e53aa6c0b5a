package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestGoCallbackCallers: a Go function called from C (a cgo export) dies
// of a fatal error ("callbackfatal") or blocks while another goroutine
// panics ("callbackblock"), on the thread Go started the C call on; or
// blocks in a call from a thread C created ("cthread"). The runtime's
// traceback goes from runtime.cgocallback straight to the Go code that
// had called C (or to a placeholder goexit), and gdb's unwind of those
// threads stops or wanders at the stack switch; the C frames between
// are on the thread's system stack. The goroutine's report has, after
// runtime.cgocallback, crosscall2, the C export wrapper and the C
// function that called Go, whose caller resumes where the program
// recorded with __builtin_return_address (c_caller_ret): in
// runtime.asmcgocall, followed by the runtime's frames of the Go code
// that called C, or in the C thread's function, followed by its
// caller (c_thread_ret) and no runtime.goexit. Every goroutine's Go
// frames are the runtime's.
func TestGoCallbackCallers(t *testing.T) {
	t.Parallel()
	exe := buildProgram(t, "gocgo")
	for _, tc := range []struct {
		mode, export, cfunc string
		cThread             bool
	}{
		{"callbackfatal", "goCallbackFatal", "c_calls_go_fatal", false},
		{"callbackblock", "goCallbackBlock", "c_calls_go_block", false},
		{"cthread", "goCallbackBlock", "c_calls_go_block", true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			c := crashProgram(t, exe, []string{"GOTRACEBACK=crash"}, tc.mode)
			callerRet, threadRet := recordedReturns(t, "gdb", c)
			expectCallbackCallers(t, c, nil, tc.export, tc.cfunc, tc.cThread, callerRet, threadRet)
		})
	}
}

// recordedReturns are gocgo's c_caller_ret and c_thread_ret in c's core,
// as gdb (tool) prints them (in C: the frame gdb starts in is Go).
func recordedReturns(t *testing.T, tool string, c crash) (callerRet, threadRet uint64) {
	t.Helper()
	gdb := testenv.NeedTool(t, tool)
	out := runTool(t, gdb, "-batch", "-nx", "-ex", "set language c", "-ex", "print/x (unsigned long)c_caller_ret", "-ex", "print/x (unsigned long)c_thread_ret", c.Exe, c.Core)
	m := regexp.MustCompile(`(?m)^\$1 = 0x([0-9a-f]+)\n\$2 = 0x([0-9a-f]+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("gdb printed no c_caller_ret and c_thread_ret:\n%s", truncate(out, 4000))
	}
	callerRet, _ = strconv.ParseUint(m[1], 16, 64)
	threadRet, _ = strconv.ParseUint(m[2], 16, 64)
	return callerRet, threadRet
}

// expectCallbackCallers checks the report of c, coreunwind run with
// flags, for the goroutine in the callback export (C function cfunc
// called it).
func expectCallbackCallers(t *testing.T, c crash, flags []string, export, cfunc string, cThread bool, callerRet, threadRet uint64) {
	t.Helper()
	rep, run := unwindJSON(t, flags, c.Core, c.Exe)
	gs := parseGoDump(c.Output)
	if len(gs) < 3 {
		t.Fatalf("the runtime printed %d goroutines; output:\n%s", len(gs), truncate(c.Output, 4000))
	}
	for i := range gs {
		// On a thread C created, the runtime ends the goroutine with a
		// placeholder after cgocallback, where coreunwind has the C
		// thread's frames.
		if fs := gs[i].Frames; cThread && len(fs) >= 2 && fs[len(fs)-2].Func == "runtime.cgocallback" && fs[len(fs)-1].Func == "runtime.goexit" {
			gs[i].Frames = fs[:len(fs)-1]
		}
	}
	expectRuntimeGoroutines(t, rep, c.Output, gs)
	if run.Code != exitOK {
		// Which walks were partial, for a failure seen only under load.
		var partial []string
		for _, th := range rep.Threads {
			if th.Error != nil {
				partial = append(partial, fmt.Sprintf("thread %d: %s\n%s", th.TID, *th.Error, formatFrames(&th, 30)))
			}
		}
		t.Errorf("exit code %d, want %d; stderr:\n%s\npartial threads:\n%s", run.Code, exitOK, truncate(run.Stderr, 4000), strings.Join(partial, "\n"))
	}
	var g *reportGoroutine
	for i := range rep.Goroutines {
		if frameOfGoroutine(&rep.Goroutines[i], "runtime.cgocallback") != nil {
			g = &rep.Goroutines[i]
		}
	}
	if g == nil {
		t.Fatalf("no goroutine in runtime.cgocallback")
	}
	k := frameOfGoroutine(g, "runtime.cgocallback").Index
	want := []string{"crosscall2", export, cfunc}
	if len(g.Frames) < k+len(want)+2 {
		t.Fatalf("goroutine %d: too few frames after runtime.cgocallback:\n%s", g.ID, formatGoroutine(g))
	}
	for i, fn := range want {
		if f := g.Frames[k+1+i]; f.Function != fn {
			t.Errorf("goroutine %d: frame %d after runtime.cgocallback is %s, want %s:\n%s", g.ID, i+1, f.Function, fn, formatGoroutine(g))
		}
	}
	caller := g.Frames[k+1+len(want)]
	if pc, _ := caller.pc(); pc != callerRet {
		t.Errorf("goroutine %d: %s's caller %s at %#x, the program recorded %#x:\n%s", g.ID, cfunc, caller.Function, pc, callerRet, formatGoroutine(g))
	}
	if !cThread {
		if caller.Function != "runtime.asmcgocall" {
			t.Errorf("goroutine %d: %s's caller is %s, want runtime.asmcgocall", g.ID, cfunc, caller.Function)
		}
		return
	}
	if caller.Function != "c_thread_main" {
		t.Errorf("goroutine %d: %s's caller is %s, want c_thread_main", g.ID, cfunc, caller.Function)
	}
	next := g.Frames[k+2+len(want)]
	if pc, _ := next.pc(); pc != threadRet {
		t.Errorf("goroutine %d: c_thread_main's caller %s at %#x, the program recorded %#x:\n%s", g.ID, next.Function, pc, threadRet, formatGoroutine(g))
	}
	if frameOfGoroutine(g, "runtime.goexit") != nil {
		t.Errorf("goroutine %d: the C thread's frames are followed by runtime.goexit:\n%s", g.ID, formatGoroutine(g))
	}
}

// TestGoCallbackCallersAArch64 is TestGoCallbackCallers on arm64, under
// qemu-user.
func TestGoCallbackCallersAArch64(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode, export, cfunc string
		cThread             bool
	}{
		{"callbackfatal", "goCallbackFatal", "c_calls_go_fatal", false},
		{"cthread", "goCallbackBlock", "c_calls_go_block", true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			c := qemuCrashEnv(t, testenv.AArch64, []string{"GOTRACEBACK=crash"}, "arm64-gocgo", tc.mode)
			callerRet, threadRet := recordedReturns(t, "gdb-multiarch", c)
			expectCallbackCallers(t, c, []string{"--sysroot", testenv.AArch64.Sysroot()}, tc.export, tc.cfunc, tc.cThread, callerRet, threadRet)
		})
	}
}
