package e2e

import (
	"testing"
)

// TestAbort: abort() through glibc (abort, raise, pthread_kill frames).
func TestAbort(t *testing.T) {
	t.Parallel()
	c := crashAndUnwind(t, "abort", nil, nil)
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	c.expectSignal(t, 6, "SIGABRT")
	th := c.crashed(t)
	expectFunctions(t, th, "raise", "abort", "second", "first", "main")
	c.expectLines(t, th, "second", "first", "main")
}

// TestNullDeref: a null store in C, the same source built as every kind of
// executable the tool must handle.
func TestNullDeref(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"null-O0", "null-O2-nofp", "null-static", "null-pie", "null-nopie"} {
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			c := crashAndUnwind(t, prog, nil, nil)
			compareWithReferences(t, c.GDB, c.EU, c.Report)
			c.expectSignal(t, 11, "SIGSEGV")
			if s := c.Report.Core.Signal; s != nil && (s.Address == nil || *s.Address != "0x0") {
				t.Errorf("signal address = %v, want \"0x0\"", s.Address)
			}
			th := c.crashed(t)
			expectFunctions(t, th, "store_through", "middle", "outer", "main")
			c.expectLines(t, th, "store_through", "middle", "outer", "main")
			if len(th.Frames) > 0 && th.Frames[0].Trust != "context" {
				t.Errorf("frame 0 trust = %q, want context", th.Frames[0].Trust)
			}
		})
	}
}

// TestNullFunctionPointer: a call through a null function pointer leaves
// pc 0, outside any code; the caller's return address is at rsp. At -O0
// the frame pointer still belongs to the caller, and following it would
// skip the function that made the call.
func TestNullFunctionPointer(t *testing.T) {
	t.Parallel()
	for prog, want := range map[string][]string{
		"nullfn-O0": {"dispatch", "handler_table", "main"},
		"nullfn-O2": {"dispatch", "main"}, // handler_table tail-calls dispatch
	} {
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			c := crashAndUnwind(t, prog, nil, nil)
			compareWithReferences(t, c.GDB, c.EU, c.Report)
			th := c.crashed(t)
			if len(th.Frames) < 2 || th.Frames[0].PC != "0x0" {
				t.Fatalf("frame 0 should be pc 0:\n%s", formatFrames(th, 6))
			}
			expectFunctions(t, th, want...)
			if th.Frames[1].Function != "dispatch" {
				t.Errorf("frame 1 is not dispatch, the function that made the call:\n%s", formatFrames(th, 6))
			}
		})
	}
}

// TestSignalHandler: crashes inside signal handlers; the unwinder must
// cross the kernel's signal frame (__restore_rt) into the interrupted code.
func TestSignalHandler(t *testing.T) {
	t.Parallel()
	t.Run("segv-handler-crashes", func(t *testing.T) {
		t.Parallel()
		c := crashAndUnwind(t, "sighandler", nil, nil, "segv")
		compareWithReferences(t, c.GDB, c.EU, c.Report)
		c.expectSignal(t, 11, "SIGSEGV")
		th := c.crashed(t)
		expectFunctions(t, th, "handler_crash", "on_segv", "__restore_rt", "fault_here", "run", "main")
		c.expectLines(t, th, "handler_crash", "on_segv", "fault_here", "run")
	})
	t.Run("alrm-handler-aborts", func(t *testing.T) {
		t.Parallel()
		c := crashAndUnwind(t, "sighandler", nil, nil, "alrm")
		compareWithReferences(t, c.GDB, c.EU, c.Report)
		c.expectSignal(t, 6, "SIGABRT")
		th := c.crashed(t)
		expectFunctions(t, th, "abort", "on_alrm", "__restore_rt", "spin_here", "run", "main")
		c.expectLines(t, th, "on_alrm", "spin_here", "run")
		// The SIGALRM frame's context records no fault (its trap
		// number 0, #DE, is only never set): the crash is abort's.
		if _, ci := crashJSON(t, c.Core, c.Exe); ci.Crash.Kind != "abort" || ci.Crash.Reraised != nil {
			t.Errorf("crash %q (kind %s, reraised %v), want abort() called by on_alrm", ci.Crash.Summary, ci.Crash.Kind, ci.Crash.Reraised)
		}
	})
}

// TestNoCFI: functions without any unwind tables (but with frame pointers)
// between the crash and main.
func TestNoCFI(t *testing.T) {
	t.Parallel()
	c := crashAndUnwind(t, "nocfi", nil, nil)
	expectNoFDE(t, c.Exe, "nocfi_a", "nocfi_b", "nocfi_c")
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	th := c.crashed(t)
	expectFunctions(t, th, "crash_cb", "nocfi_c", "nocfi_b", "nocfi_a", "main")
	// gdb gets past the CFI-less frames with its prologue analyzer; the
	// return addresses it finds are the ground truth here.
	c.expectGDBPCs(t, th, "nocfi_c", "nocfi_b", "nocfi_a", "main")
}

// expectGDBPCs checks coreunwind's first frame of each named function
// against gdb's pc for it.
func (c *crashCase) expectGDBPCs(t *testing.T, th *reportThread, funcs ...string) {
	t.Helper()
	for _, fn := range funcs {
		g := refFrameOf(c.GDB[th.TID], fn)
		f := frameOf(th, fn)
		if g == nil || f == nil {
			continue // reported by expectFunctions or by the reference check
		}
		if pc, _ := f.pc(); pc != g.PC {
			t.Errorf("%s: coreunwind pc %s, gdb 0x%x", fn, f.PC, g.PC)
		}
	}
}

// TestManyThreads: 57 threads, each parked at a different depth in one of
// four blocking calls; the main thread crashes.
func TestManyThreads(t *testing.T) {
	t.Parallel()
	c := crashAndUnwind(t, "threads", nil, nil)
	if len(c.GDB) != 57 || len(c.EU) != 57 {
		t.Fatalf("reference tools see %d (gdb) and %d (eu-stack) threads, want 57", len(c.GDB), len(c.EU))
	}
	if len(c.Report.Threads) != 57 {
		t.Errorf("coreunwind reports %d threads, want 57", len(c.Report.Threads))
	}
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	c.expectSignal(t, 11, "SIGSEGV")
	th := c.crashed(t)
	if th.TID != c.Report.Core.PID {
		t.Errorf("crashed thread %d is not the main thread %d", th.TID, c.Report.Core.PID)
	}
	expectFunctions(t, th, "crash_main", "main")
	// Every worker ends in worker -> start_thread, whatever its depth.
	for _, w := range c.Report.Threads {
		if w.TID == th.TID {
			continue
		}
		expectFunctions(t, &w, "level_a", "worker", "start_thread")
	}
}

// TestDeepRecursion: 5000 recursive frames, unwound completely by default
// and with a high --max-frames, and cut at --max-frames 100.
func TestDeepRecursion(t *testing.T) {
	t.Parallel()
	exe := buildProgram(t, "recurse")
	cr := crashProgram(t, exe, nil)
	c := &crashCase{crash: cr}
	c.references(t, "-n", "0") // eu-stack stops at 256 frames by default
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"full", []string{"--max-frames", "10000"}},
		{"default", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, _ := unwindJSON(t, tc.flags, c.Core, c.Exe)
			compareWithReferences(t, c.GDB, c.EU, rep)
			th := crashedThread(t, rep)
			n := 0
			for _, f := range th.Frames {
				if normalizeFunc(f.Function) == "recurse" {
					n++
				}
			}
			if n != 5001 {
				t.Errorf("%d recurse frames, want 5001", n)
			}
			if th.Truncated {
				t.Errorf("truncated = true with %v and %d frames", tc.flags, len(th.Frames))
			}
		})
	}
	for _, tc := range []struct {
		name  string
		flags []string
		want  int
	}{
		{"max-frames-100", []string{"--max-frames", "100"}, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, _ := unwindJSON(t, tc.flags, c.Core, c.Exe)
			th := crashedThread(t, rep)
			if !th.Truncated {
				t.Errorf("truncated = false, want true (%d frames)", len(th.Frames))
			}
			if len(th.Frames) != tc.want {
				t.Errorf("%d frames, want %d", len(th.Frames), tc.want)
			}
			g := c.GDB[th.TID]
			for i := 0; i < len(th.Frames) && g != nil && i < len(g.Frames); i++ {
				if pc, _ := th.Frames[i].pc(); pc != g.Frames[i].PC {
					t.Errorf("frame %d: coreunwind %s, gdb %s", i, th.Frames[i], g.Frames[i].Raw)
					break
				}
			}
		})
	}
}

func crashedThread(t *testing.T, rep *report) *reportThread {
	t.Helper()
	c := &crashCase{Report: rep}
	return c.crashed(t)
}

// TestDlopen: the crash happens in a library loaded with dlopen.
func TestDlopen(t *testing.T) {
	t.Parallel()
	exe := buildProgram(t, "dlopen")
	plugin := exe[:len(exe)-len("dlopen_main")] + "libplugin.so"
	c := &crashCase{crash: crashProgram(t, exe, nil, plugin)}
	c.references(t)
	c.Report, c.Run = unwindJSON(t, nil, c.Core, c.Exe)
	compareWithReferences(t, c.GDB, c.EU, c.Report)
	th := c.crashed(t)
	expectFunctions(t, th, "plugin_deep", "plugin_mid", "plugin_entry", "call_plugin", "main")
	c.expectLines(t, th, "plugin_deep", "plugin_mid", "plugin_entry", "call_plugin")
	if len(th.Frames) > 0 && th.Frames[0].Module != plugin {
		t.Errorf("frame 0 module = %q, want %q", th.Frames[0].Module, plugin)
	}
}
