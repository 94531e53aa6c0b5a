package elfx

import (
	"testing"
)

// tailCallProgram: cleanup jumps to buf_free, which jumps to free; main
// calls cleanup.
const tailCallProgram = `#include <stdlib.h>
__attribute__((noinline)) void buf_free(char *p) { free(p); }
__attribute__((noinline)) void cleanup(char *p) { buf_free(p); }
int main(void) {
	char *volatile p = malloc(32);
	cleanup(p);
	return 0;
}
`

// TestCallSites reads the call-site records gcc writes, in DWARF 5's
// form (DW_TAG_call_site) and DWARF 4's GNU one (DW_TAG_GNU_call_site).
func TestCallSites(t *testing.T) {
	for _, dw := range []string{"-gdwarf-5", "-gdwarf-4"} {
		t.Run(dw, func(t *testing.T) {
			dir := t.TempDir()
			bin := compile(t, dir, "gcc", "prog", "c", tailCallProgram, "-O2", "-g", dw)
			o := mustOpen(t, bin)
			sym := func(name string) uint64 {
				s, ok := o.LookupSymbol(name)
				if !ok {
					t.Fatalf("no symbol %s", name)
				}
				return s.Addr
			}
			mainAddr, cleanup, bufFree := sym("main"), sym("cleanup"), sym("buf_free")
			if e, ok := o.FunctionEntry(cleanup + 1); !ok || e != cleanup {
				t.Errorf("FunctionEntry(cleanup+1) = %#x, %v; want %#x", e, ok, cleanup)
			}

			sites, found, err := o.TailCalls(cleanup)
			if err != nil || !found || len(sites) != 1 {
				t.Fatalf("TailCalls(cleanup) = %+v, %v, %v; want one site", sites, found, err)
			}
			if s := sites[0]; !s.Tail || !s.HasTargetAddr || s.TargetAddr != bufFree || s.ReturnPC <= cleanup {
				t.Errorf("cleanup's tail call = %+v, want a tail call to buf_free at %#x", s, bufFree)
			}
			sites, found, err = o.TailCalls(bufFree)
			if err != nil || !found || len(sites) != 1 {
				t.Fatalf("TailCalls(buf_free) = %+v, %v, %v; want one site", sites, found, err)
			}
			if s := sites[0]; !s.Tail || s.HasTargetAddr || s.TargetName != "free" {
				t.Errorf("buf_free's tail call = %+v, want a tail call to free by name", s)
			}
			if _, found, _ := o.TailCalls(cleanup + 1); found {
				t.Errorf("TailCalls found a function starting inside cleanup")
			}

			// main's call of cleanup is found by its return address.
			fc, err := o.callsOf(mainAddr)
			if err != nil || fc == nil {
				t.Fatalf("calls of main: %v, %v", fc, err)
			}
			var call *CallSite
			for i := range fc.sites {
				if c := fc.site(i); c.HasTargetAddr && c.TargetAddr == cleanup {
					call = &c
				}
			}
			if call == nil || call.Tail {
				t.Fatalf("main's call sites %+v: no call of cleanup", fc.sites)
			}
			got, ok, err := o.CallSiteAt(call.ReturnPC)
			if err != nil || !ok || got != *call {
				t.Errorf("CallSiteAt(%#x) = %+v, %v, %v; want %+v", call.ReturnPC, got, ok, err, *call)
			}
			if _, ok, _ := o.CallSiteAt(call.ReturnPC + 1); ok {
				t.Errorf("CallSiteAt(%#x) found a call site at no return address", call.ReturnPC+1)
			}
		})
	}
}
