package stackwalkjson

import (
	"testing"

	"github.com/coreunwind/coreunwind/report"
)

// TestConvertFrames: an inlined call goes into its frame's inlines, a
// tail-call frame (which the schema cannot hold) is left out, trusts map
// to the schema's, addresses are padded to the pointer width, and the
// crashing thread carries frame 0's registers.
func TestConvertFrames(t *testing.T) {
	exe := "/bin/prog"
	r := &report.Report{
		Core: report.Core{Arch: "x86_64", OS: "linux", PointerSize: 8, PID: report.Ptr(7), Executable: &exe, CrashedTID: report.Ptr(7),
			Signal: &report.Signal{Number: 11, Name: "SIGSEGV", CodeName: report.Ptr("SEGV_MAPERR"), Address: report.Ptr(report.Hex(0x10))}},
		Modules: []report.Module{{Path: "/lib/libc.so.6", BuildID: report.Ptr("4c8a9509c5e8f0c5b2163e78826ab573198ce5aa"), Found: true}, {Path: exe}},
		Threads: []report.Thread{{TID: 7, Frames: []report.Frame{
			{PC: 0x1000, Trust: "context", Inlined: true, Function: report.Ptr("helper"), Line: report.Ptr(3)},
			{PC: 0x1000, Trust: "context", Function: report.Ptr("f"), Module: &exe, ModuleOffset: report.Ptr(report.Hex(0x1000)),
				Registers: []report.Register{{Name: "rip", Value: 0x1000}}},
			{PC: 0x2000, Trust: report.TrustTailCall, Function: report.Ptr("jumper")},
			{PC: 0x3000, Trust: "unwind_table"},
			{PC: 0x4000, Trust: "scan"},
		}}},
	}
	o := Convert(r)
	fs := o.Threads[0].Frames
	if len(fs) != 3 || o.Threads[0].FrameCount != 3 {
		t.Fatalf("frames %+v", fs)
	}
	if len(fs[0].Inlines) != 1 || fs[0].Inlines[0].Function != "helper" || *fs[0].Function != "f" || fs[0].Offset != "0x0000000000001000" {
		t.Errorf("frame 0 %+v", fs[0])
	}
	if fs[1].Trust != "cfi" || !fs[1].MissingSymbols || fs[2].Trust != "scan" || fs[1].Frame != 1 {
		t.Errorf("frames 1, 2: %+v %+v", fs[1], fs[2])
	}
	if o.CrashingThread == nil || o.CrashingThread.Registers["rip"] != "0x0000000000001000" || o.CrashingThread.Index != 0 {
		t.Errorf("crashing thread %+v", o.CrashingThread)
	}
	if *o.CrashInfo.Type != "SIGSEGV / SEGV_MAPERR" || *o.CrashInfo.Address != "0x0000000000000010" || o.SystemInfo.CPUArch != "amd64" || o.SystemInfo.OS != "Linux" {
		t.Errorf("crash info %+v system %+v", o.CrashInfo, o.SystemInfo)
	}
	if o.MainModule == nil || *o.MainModule != 1 || *o.Modules[0].DebugID != "09958A4CE8C5C5F0B2163E78826AB5730" || !o.Modules[1].MissingSymbols {
		t.Errorf("modules %+v main %v", o.Modules, o.MainModule)
	}
}
