package report

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// jsonEnc writes a Report as encoding/json with two-space indentation
// would, byte for byte (the tests compare the two), without reflection:
// a report of thousands of frames spent most of its output time in
// encoding/json's reflection and in one MarshalJSON call per address.
type jsonEnc struct {
	b     []byte
	depth int
	first []bool // per open object or list: nothing written in it yet

	// w, when set, receives b whenever it passes jsonFlushSize: a
	// report of 5,000 frames is megabytes of JSON, which need not be in
	// memory at once. err is the first write error.
	w   io.Writer
	err error
}

const jsonFlushSize = 32 << 10

// flush writes out what is buffered once there is enough of it.
func (e *jsonEnc) flush() {
	if e.w == nil || len(e.b) < jsonFlushSize {
		return
	}
	if e.err == nil {
		_, e.err = e.w.Write(e.b)
	}
	e.b = e.b[:0]
}

func (e *jsonEnc) newline() {
	e.b = append(e.b, '\n')
	for i := 0; i < e.depth; i++ {
		e.b = append(e.b, ' ', ' ')
	}
}

// item starts a value inside the innermost object or list.
func (e *jsonEnc) item() {
	n := len(e.first) - 1
	if !e.first[n] {
		e.b = append(e.b, ',')
	}
	e.first[n] = false
	e.newline()
}

func (e *jsonEnc) open(c byte) {
	e.b = append(e.b, c)
	e.depth++
	e.first = append(e.first, true)
}

func (e *jsonEnc) close(c byte) {
	n := len(e.first) - 1
	empty := e.first[n]
	e.first = e.first[:n]
	e.depth--
	if !empty {
		e.newline()
	}
	e.b = append(e.b, c)
}

func (e *jsonEnc) key(k string) {
	e.item()
	e.str(k)
	e.b = append(e.b, ':', ' ')
}

func (e *jsonEnc) null() { e.b = append(e.b, "null"...) }

func (e *jsonEnc) hex(v Hex) {
	e.b = append(e.b, '"', '0', 'x')
	e.b = strconv.AppendUint(e.b, uint64(v), 16)
	e.b = append(e.b, '"')
}

func (e *jsonEnc) hexPtr(v *Hex) {
	if v == nil {
		e.null()
		return
	}
	e.hex(*v)
}

func (e *jsonEnc) int(v int) { e.b = strconv.AppendInt(e.b, int64(v), 10) }

func (e *jsonEnc) intPtr(v *int) {
	if v == nil {
		e.null()
		return
	}
	e.int(*v)
}

func (e *jsonEnc) bool(v bool) { e.b = strconv.AppendBool(e.b, v) }

func (e *jsonEnc) strPtr(s *string) {
	if s == nil {
		e.null()
		return
	}
	e.str(*s)
}

func (e *jsonEnc) strs(l []string) {
	e.open('[')
	for _, s := range l {
		e.item()
		e.str(s)
	}
	e.close(']')
}

// str writes a JSON string escaped as encoding/json escapes it (HTML
// characters, U+2028/U+2029 and invalid UTF-8 included).
func (e *jsonEnc) str(s string) {
	const hexDigits = "0123456789abcdef"
	e.b = append(e.b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			e.b = append(e.b, s[start:i]...)
			switch c {
			case '\\', '"':
				e.b = append(e.b, '\\', c)
			case '\b':
				e.b = append(e.b, '\\', 'b')
			case '\f':
				e.b = append(e.b, '\\', 'f')
			case '\n':
				e.b = append(e.b, '\\', 'n')
			case '\r':
				e.b = append(e.b, '\\', 'r')
			case '\t':
				e.b = append(e.b, '\\', 't')
			default:
				e.b = append(e.b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			e.b = append(e.b, s[start:i]...)
			e.b = append(e.b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			e.b = append(e.b, s[start:i]...)
			e.b = append(e.b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	e.b = append(e.b, s[start:]...)
	e.b = append(e.b, '"')
}

func (e *jsonEnc) report(r *Report) {
	e.open('{')
	e.key("schema")
	e.str(r.Schema)
	e.key("tool")
	e.open('{')
	e.key("name")
	e.str(r.Tool.Name)
	e.key("version")
	e.str(r.Tool.Version)
	e.close('}')
	e.key("core")
	e.core(&r.Core)
	e.key("modules")
	e.open('[')
	for i := range r.Modules {
		e.item()
		e.module(&r.Modules[i])
	}
	e.close(']')
	e.key("threads")
	e.open('[')
	for i := range r.Threads {
		e.item()
		e.thread(&r.Threads[i])
	}
	e.close(']')
	e.key("warnings")
	e.strs(r.Warnings)
	e.close('}')
}

func (e *jsonEnc) core(c *Core) {
	e.open('{')
	e.key("path")
	e.str(c.Path)
	e.key("format")
	e.str(c.Format)
	e.key("arch")
	e.str(c.Arch)
	e.key("byte_order")
	e.str(c.ByteOrder)
	e.key("pointer_size")
	e.int(c.PointerSize)
	e.key("os")
	e.str(c.OS)
	e.key("pid")
	e.intPtr(c.PID)
	e.key("executable")
	e.strPtr(c.Executable)
	e.key("command_line")
	e.strPtr(c.CommandLine)
	e.key("signal")
	if s := c.Signal; s == nil {
		e.null()
	} else {
		e.open('{')
		e.key("number")
		e.int(s.Number)
		e.key("name")
		e.str(s.Name)
		e.key("code")
		e.int(s.Code)
		e.key("code_name")
		e.strPtr(s.CodeName)
		e.key("address")
		e.hexPtr(s.Address)
		e.close('}')
	}
	e.key("crashed_tid")
	e.intPtr(c.CrashedTID)
	e.close('}')
}

func (e *jsonEnc) module(m *Module) {
	e.open('{')
	e.key("path")
	e.str(m.Path)
	e.key("build_id")
	e.strPtr(m.BuildID)
	e.key("start")
	e.hex(m.Start)
	e.key("end")
	e.hex(m.End)
	e.key("file_offset")
	e.hex(m.FileOffset)
	e.key("found")
	e.bool(m.Found)
	e.key("debug_file")
	e.strPtr(m.DebugFile)
	e.close('}')
}

func (e *jsonEnc) thread(t *Thread) {
	e.open('{')
	e.key("tid")
	e.int(t.TID)
	e.key("name")
	e.strPtr(t.Name)
	e.key("crashed")
	e.bool(t.Crashed)
	e.key("frames")
	e.open('[')
	for i := range t.Frames {
		e.item()
		e.frame(&t.Frames[i])
		e.flush()
	}
	e.close(']')
	e.key("truncated")
	e.bool(t.Truncated)
	e.key("error")
	e.strPtr(t.Error)
	e.close('}')
}

func (e *jsonEnc) frame(f *Frame) {
	e.open('{')
	e.key("index")
	e.int(f.Index)
	e.key("pc")
	e.hex(f.PC)
	e.key("exact_pc")
	e.bool(f.ExactPC)
	e.key("sp")
	e.hexPtr(f.SP)
	e.key("cfa")
	e.hexPtr(f.CFA)
	e.key("trust")
	e.str(f.Trust)
	e.key("module")
	e.strPtr(f.Module)
	e.key("module_offset")
	e.hexPtr(f.ModuleOffset)
	e.key("function")
	e.strPtr(f.Function)
	e.key("function_offset")
	e.hexPtr(f.FunctionOffset)
	e.key("file")
	e.strPtr(f.File)
	e.key("line")
	e.intPtr(f.Line)
	e.key("column")
	e.intPtr(f.Column)
	e.key("inlined")
	e.bool(f.Inlined)
	e.close('}')
}
