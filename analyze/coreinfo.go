package analyze

import (
	"encoding/binary"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/report"
)

func coreInfo(c *corefile.Core) report.Core {
	rc := report.Core{
		Path:        c.Path,
		Format:      c.Format,
		Arch:        c.Arch,
		ByteOrder:   "little",
		PointerSize: c.PtrSize(),
		OS:          c.OS,
	}
	if c.ByteOrder() == binary.BigEndian {
		rc.ByteOrder = "big"
	}
	if c.PID != 0 {
		rc.PID = report.Ptr(c.PID)
	}
	if c.Executable != "" {
		rc.Executable = report.Ptr(c.Executable)
	}
	if c.CommandLine != "" {
		rc.CommandLine = report.Ptr(c.CommandLine)
	}
	if s := c.Signal; s != nil {
		rs := reportSignal(s)
		if s.HasSender && s.SenderPID != c.PID { // abort() signals itself: nothing to say
			rs.SenderPID, rs.SenderUID = report.Ptr(s.SenderPID), report.Ptr(s.SenderUID)
		}
		rc.Signal = rs
	}
	for _, a := range c.Annotations {
		ra := report.Annotation{Value: a.Value}
		if a.Module != "" {
			ra.Module = report.Ptr(a.Module)
		}
		if !a.List {
			ra.Key = report.Ptr(a.Key)
		}
		rc.Annotations = append(rc.Annotations, ra)
	}
	if c.Thread(c.CrashedTID) != nil && crashed(c) { // none when damaged notes hide it
		rc.CrashedTID = report.Ptr(c.CrashedTID)
	}
	return rc
}

func moduleInfo(t *target) []report.Module {
	out := make([]report.Module, 0, len(t.modules))
	for _, m := range t.modules {
		// A report opens only the modules its frames are in: a file
		// corefile found and nobody opened counts as found; the vDSO,
		// read from the core's memory, is opened here.
		if m.core.File == "" {
			m.obj()
		}
		obj := m.opened
		found := obj != nil || m.core.File != "" && !m.tried.Load()
		rm := report.Module{
			Path:       m.core.Path,
			Start:      report.Hex(m.start),
			End:        report.Hex(m.end),
			FileOffset: report.Hex(m.core.FileOffset),
			Found:      found,
		}
		if id := m.core.BuildID; id != "" {
			rm.BuildID = report.Ptr(id)
		} else if obj != nil && obj.BuildID() != "" {
			rm.BuildID = report.Ptr(obj.BuildID())
		}
		if obj != nil && obj.DebugFile() != "" {
			rm.DebugFile = report.Ptr(obj.DebugFile())
		}
		out = append(out, rm)
	}
	return out
}

// coreDumpingSignals are the signals whose default action dumps core
// (signal(7)): the kernel writes cores for nothing else.
var coreDumpingSignals = map[string]bool{
	"SIGQUIT": true, "SIGILL": true, "SIGTRAP": true, "SIGABRT": true, "SIGIOT": true,
	"SIGBUS": true, "SIGFPE": true, "SIGSEGV": true, "SIGXCPU": true, "SIGXFSZ": true,
	"SIGSYS": true, "SIGUNUSED": true, "SIGEMT": true,
}

// crashed reports whether the core records a crash: a core-dumping
// signal. A core gdb's gcore took of a live process records the SIGSTOP
// gdb attached with; no thread of it crashed.
func crashed(c *corefile.Core) bool {
	return c.Signal == nil || coreDumpingSignals[c.Signal.Name()]
}

// reportSignal is a signal's number, name, code and fault address as the
// report gives them.
func reportSignal(s *corefile.Signal) *report.Signal {
	rs := &report.Signal{Number: s.Number, Name: s.Name(), Code: s.Code}
	if n := s.CodeName(); n != "" {
		rs.CodeName = report.Ptr(n)
	}
	if s.HasAddr {
		rs.Address = report.Ptr(report.Hex(s.Addr))
	}
	return rs
}
