// Package stackwalkjson writes a report in the JSON schema of
// rust-minidump's minidump-stackwalk (minidump-processor's
// json-schema.md), so that pipelines built on it (Sentry's, Socorro's)
// can read coreunwind's reports, of minidumps and of cores alike. The
// schema and how coreunwind fills it: stackwalk-json.md beside this file.
//
// It writes what the report holds; what a core does not record (the CPU
// model, the OS version) is null, as the schema allows for every field.
package stackwalkjson

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path"

	"github.com/coreunwind/coreunwind/minidump"
	"github.com/coreunwind/coreunwind/report"
)

// Output is the document's top level.
type Output struct {
	Status         string          `json:"status"`
	PID            *int            `json:"pid"`
	CrashInfo      CrashInfo       `json:"crash_info"`
	SystemInfo     SystemInfo      `json:"system_info"`
	ThreadCount    int             `json:"thread_count"`
	Threads        []Thread        `json:"threads"`
	CrashingThread *CrashingThread `json:"crashing_thread"`
	MainModule     *int            `json:"main_module"`
	CertInfo       bool            `json:"modules_contains_cert_info"`
	Modules        []Module        `json:"modules"`
	Unloaded       []Module        `json:"unloaded_modules"`
}

// CrashInfo says what killed the process.
type CrashInfo struct {
	Type           *string `json:"type"`
	Address        *string `json:"address"`
	CrashingThread *int    `json:"crashing_thread"`
	Assertion      *string `json:"assertion"`
}

// SystemInfo is the dumped machine.
type SystemInfo struct {
	OS        string  `json:"os"`
	OSVer     *string `json:"os_ver"`
	CPUArch   string  `json:"cpu_arch"`
	CPUInfo   *string `json:"cpu_info"`
	CPUCount  *int    `json:"cpu_count"`
	Microcode *string `json:"cpu_microcode_version"`
}

// Thread is one thread's stack.
type Thread struct {
	Name       *string `json:"thread_name"`
	LastError  *string `json:"last_error_value"`
	FrameCount int     `json:"frame_count"`
	Frames     []Frame `json:"frames"`
}

// CrashingThread is the crashed thread again, with its registers.
type CrashingThread struct {
	Index     int               `json:"threads_index"`
	Registers map[string]string `json:"registers"`
	Thread
}

// Frame is one physical frame; the calls inlined at its pc are Inlines,
// innermost first (rust-minidump's "inlines").
type Frame struct {
	Frame          int      `json:"frame"`
	Trust          string   `json:"trust"`
	Offset         string   `json:"offset"`
	Module         *string  `json:"module"`
	ModuleOffset   *string  `json:"module_offset"`
	Function       *string  `json:"function"`
	FunctionOffset *string  `json:"function_offset"`
	File           *string  `json:"file"`
	Line           *int     `json:"line"`
	MissingSymbols bool     `json:"missing_symbols"`
	Inlines        []Inline `json:"inlines"`
}

// Inline is a call inlined at a frame's pc.
type Inline struct {
	Function string  `json:"function"`
	File     *string `json:"file"`
	Line     *int    `json:"line"`
}

// Module is a mapped object.
type Module struct {
	BaseAddr       string  `json:"base_addr"`
	EndAddr        string  `json:"end_addr"`
	DebugFile      *string `json:"debug_file"`
	DebugID        *string `json:"debug_id"`
	Filename       string  `json:"filename"`
	CodeID         *string `json:"code_id"`
	Version        *string `json:"version"`
	CertSubject    *string `json:"cert_subject"`
	MissingSymbols bool    `json:"missing_symbols"`
	LoadedSymbols  bool    `json:"loaded_symbols"`
	CorruptSymbols bool    `json:"corrupt_symbols"`
	SymbolURL      *string `json:"symbol_url"`
}

// Write writes r as one indented minidump-stackwalk JSON document.
func Write(w io.Writer, r *report.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(Convert(r))
}

// cpuArches maps the report's arch names to the schema's.
var cpuArches = map[string]string{
	"x86_64": "amd64", "i386": "x86", "aarch64": "arm64", "arm": "arm",
	"ppc": "ppc", "ppc64": "ppc64", "ppc64le": "ppc64", "sparc64": "sparc",
}

// osNames maps the report's OS names to the schema's.
var osNames = map[string]string{"linux": "Linux", "android": "Android", "solaris": "Solaris"}

// trusts maps the report's frame trust to the schema's: the unwind tables
// of other formats and JIT unwind info are unwind information as CFI is.
var trusts = map[string]string{
	"context": "context", "cfi": "cfi", "unwind_table": "cfi", "dynamic": "cfi",
	"frame_pointer": "frame_pointer", "scan": "scan",
}

// Convert builds the document from a report.
func Convert(r *report.Report) *Output {
	width := 2 * r.Core.PointerSize
	if width == 0 {
		width = 16
	}
	addr := func(v uint64) string { return fmt.Sprintf("0x%0*x", width, v) }
	o := &Output{Status: "OK", PID: r.Core.PID, Threads: []Thread{}, Modules: []Module{}, Unloaded: []Module{}}
	o.SystemInfo = SystemInfo{OS: osNames[r.Core.OS], CPUArch: cpuArches[r.Core.Arch]}
	if o.SystemInfo.OS == "" {
		o.SystemInfo.OS = r.Core.OS
	}
	if o.SystemInfo.CPUArch == "" {
		o.SystemInfo.CPUArch = "unknown"
	}
	if s := r.Core.Signal; s != nil {
		t := s.Name
		if s.CodeName != nil {
			t += " / " + *s.CodeName
		}
		o.CrashInfo.Type = &t
		if s.Address != nil {
			a := addr(uint64(*s.Address))
			o.CrashInfo.Address = &a
		}
	}
	o.CrashInfo.CrashingThread = r.Core.CrashedTID
	if r.Crash != nil && r.Crash.AbortMessage != nil {
		o.CrashInfo.Assertion = r.Crash.AbortMessage
	}
	for i, m := range r.Modules {
		o.Modules = append(o.Modules, module(m, addr))
		if r.Core.Executable != nil && m.Path == *r.Core.Executable && o.MainModule == nil {
			o.MainModule = report.Ptr(i)
		}
	}
	for i, th := range r.Threads {
		t := thread(th, addr)
		o.Threads = append(o.Threads, t)
		if r.Core.CrashedTID != nil && th.TID == *r.Core.CrashedTID && o.CrashingThread == nil {
			ct := &CrashingThread{Index: i, Thread: t, Registers: map[string]string{}}
			for _, f := range th.Frames {
				if !f.Inlined {
					for _, reg := range f.Registers {
						ct.Registers[reg.Name] = addr(uint64(reg.Value))
					}
					break
				}
			}
			o.CrashingThread = ct
		}
	}
	o.ThreadCount = len(o.Threads)
	return o
}

func module(m report.Module, addr func(uint64) string) Module {
	base := path.Base(m.Path)
	out := Module{BaseAddr: addr(uint64(m.Start)), EndAddr: addr(uint64(m.End)), Filename: base,
		DebugFile: &base, MissingSymbols: !m.Found, LoadedSymbols: m.Found}
	if m.BuildID != nil {
		out.CodeID = m.BuildID
		if id, err := hex.DecodeString(*m.BuildID); err == nil {
			out.DebugID = report.Ptr(minidump.DebugIDFromBuildID(id))
		}
	}
	return out
}

// thread converts a thread's frames: inlined calls (which come before
// the frame they are inlined in, at its pc) go into that frame's
// inlines; tail-call frames, which the schema has no place for, are left
// out.
func thread(th report.Thread, addr func(uint64) string) Thread {
	t := Thread{Name: th.Name, Frames: []Frame{}}
	var inlines []Inline
	for _, f := range th.Frames {
		if f.Trust == report.TrustTailCall {
			continue
		}
		if f.Inlined {
			in := Inline{File: f.File, Line: f.Line}
			if f.Function != nil {
				in.Function = *f.Function
			}
			inlines = append(inlines, in)
			continue
		}
		trust, ok := trusts[f.Trust]
		if !ok {
			trust = "none"
		}
		fr := Frame{Frame: len(t.Frames), Trust: trust, Offset: addr(uint64(f.PC)), Function: f.Function,
			File: f.File, Line: f.Line, MissingSymbols: f.Function == nil, Inlines: inlines}
		inlines = nil
		if f.Module != nil {
			fr.Module = report.Ptr(path.Base(*f.Module))
		}
		if f.ModuleOffset != nil {
			fr.ModuleOffset = report.Ptr(addr(uint64(*f.ModuleOffset)))
		}
		if f.FunctionOffset != nil {
			fr.FunctionOffset = report.Ptr(addr(uint64(*f.FunctionOffset)))
		}
		t.Frames = append(t.Frames, fr)
	}
	t.FrameCount = len(t.Frames)
	return t
}
