package report

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsonEnc writes a Report as encoding/json with two-space indentation
// and HTML escaping off would, byte for byte (the tests compare the two), without reflection:
// a report of thousands of frames spent most of its output time in
// encoding/json's reflection and in one MarshalJSON call per address.
type jsonEnc struct {
	b     []byte
	depth int
	first []bool // per open object or list: nothing written in it yet

	// w, when set, receives the output whenever b holds jsonFlushAt
	// bytes, so that a million-frame stack is not also kept whole as
	// text (about 430 bytes a frame); err is its first write error,
	// after which output is dropped.
	w   io.Writer
	err error

	// frameFields is what frame writes before each field, made for the
	// depth frames are at (see frameLayout).
	frameFields *frameLayout
	// registerFields is the same for register lists.
	registerFields *registerLayout
}

const jsonFlushAt = 64 << 10

// flush hands a full buffer to the writer.
func (e *jsonEnc) flush() {
	if e.w == nil || len(e.b) < jsonFlushAt {
		return
	}
	if e.err == nil {
		_, e.err = e.w.Write(e.b)
	}
	e.b = e.b[:0]
}

// newlineIndent is a newline and the indentation of the deepest lines
// the report has; deeper ones (none today) are indented by a loop.
const newlineIndent = "\n                                "

func (e *jsonEnc) newline() {
	if n := 1 + 2*e.depth; n <= len(newlineIndent) {
		e.b = append(e.b, newlineIndent[:n]...)
		return
	}
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

// key writes an object key. Keys are this file's own literals, plain
// ASCII names that need no escaping (the tests compare every key with
// encoding/json's output).
func (e *jsonEnc) key(k string) {
	e.item()
	e.b = append(e.b, '"')
	e.b = append(e.b, k...)
	e.b = append(e.b, '"', ':', ' ')
}

func (e *jsonEnc) null() { e.b = append(e.b, "null"...) }

// hex writes v as MarshalJSON does ("0x", lower-case digits, no leading
// zeros).
func (e *jsonEnc) hex(v Hex) {
	e.b = append(e.b, '"', '0', 'x')
	e.b = appendHex(e.b, uint64(v), 0)
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

// jsonPlain marks the bytes encoding/json writes as they are when HTML
// escaping is off: printable ASCII but for '"' and '\\'. '<', '>' and '&'
// stay as they are (C++ names are full of them: Ledger<long int>, and
// \u003c defeats grep); nobody embeds a core report in HTML.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str writes a JSON string escaped as encoding/json escapes it with
// SetEscapeHTML(false) (U+2028/U+2029 and invalid UTF-8 included).
func (e *jsonEnc) str(s string) {
	i := 0
	for i < len(s) && jsonPlain[s[i]] {
		i++
	}
	e.b = append(e.b, '"')
	if i == len(s) { // the common case: nothing to escape
		e.b = append(e.b, s...)
		e.b = append(e.b, '"')
		return
	}
	start := 0
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonPlain[c] {
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
	e.key("crash")
	e.crash(r.Crash)
	e.key("modules")
	e.open('[')
	for i := range r.Modules {
		e.item()
		e.module(&r.Modules[i])
	}
	e.close(']')
	e.key("mappings")
	e.mappings(r.Mappings)
	e.key("threads")
	e.open('[')
	for i := range r.Threads {
		e.item()
		e.thread(&r.Threads[i])
	}
	e.close(']')
	e.key("goroutines")
	e.goroutines(r.Goroutines)
	e.key("python")
	if r.Python == nil {
		e.null()
	} else {
		e.open('{')
		e.key("version")
		e.str(r.Python.Version)
		e.key("layout")
		e.str(r.Python.Layout)
		e.key("module")
		e.str(r.Python.Module)
		e.close('}')
	}
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
	if c.Signal == nil {
		e.null()
	} else {
		e.signal(c.Signal)
	}
	e.key("crashed_tid")
	e.intPtr(c.CrashedTID)
	e.key("origin")
	e.origin(c.Origin)
	e.key("annotations")
	e.open('[')
	for i := range c.Annotations {
		a := &c.Annotations[i]
		e.item()
		e.open('{')
		e.key("module")
		e.strPtr(a.Module)
		e.key("key")
		e.strPtr(a.Key)
		e.key("value")
		e.str(a.Value)
		e.close('}')
	}
	e.close(']')
	e.close('}')
}

func (e *jsonEnc) origin(o *Origin) {
	if o == nil {
		e.null()
		return
	}
	e.open('{')
	e.key("format")
	e.str(o.Format)
	e.key("path")
	e.str(o.Path)
	for _, f := range []struct {
		key string
		v   *string
	}{{"entry", o.Entry}, {"time", o.Time}, {"executable", o.Executable}, {"command_line", o.CommandLine}} {
		e.key(f.key)
		e.strPtr(f.v)
	}
	e.key("pid")
	e.intPtr(o.PID)
	e.key("uid")
	e.intPtr(o.UID)
	e.key("signal")
	e.intPtr(o.Signal)
	for _, f := range []struct {
		key string
		v   *string
	}{{"unit", o.Unit}, {"hostname", o.Hostname}, {"boot_id", o.BootID}, {"package", o.Package},
		{"package_version", o.PackageVersion}, {"reason", o.Reason}} {
		e.key(f.key)
		e.strPtr(f.v)
	}
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
	e.key("python")
	e.pythonThread(t.Python)
	e.close('}')
}

// pythonThread writes a thread's Python thread state, null for none.
func (e *jsonEnc) pythonThread(p *PythonThread) {
	if p == nil {
		e.null()
		return
	}
	e.open('{')
	e.key("thread_id")
	e.hex(p.ThreadID)
	e.key("holds_gil")
	e.bool(p.HoldsGIL)
	e.key("exception")
	if x := p.Exception; x == nil {
		e.null()
	} else {
		e.open('{')
		e.key("type")
		e.str(x.Type)
		e.key("message")
		e.strPtr(x.Message)
		e.key("handled")
		e.bool(x.Handled)
		e.close('}')
	}
	e.key("error")
	e.strPtr(p.Error)
	e.close('}')
}

// goroutines writes a Go program's goroutines, null for none.
func (e *jsonEnc) goroutines(gs []Goroutine) {
	if gs == nil {
		e.null()
		return
	}
	e.open('[')
	for i := range gs {
		g := &gs[i]
		e.item()
		e.open('{')
		e.key("id")
		e.b = strconv.AppendUint(e.b, g.ID, 10)
		e.key("state")
		e.str(g.State)
		e.key("crashed")
		e.bool(g.Crashed)
		e.key("tid")
		e.intPtr(g.TID)
		e.key("frames")
		e.open('[')
		for j := range g.Frames {
			e.item()
			e.frame(&g.Frames[j])
			e.flush()
		}
		e.close(']')
		e.key("error")
		e.strPtr(g.Error)
		e.goroutineInfo(g)
		e.close('}')
	}
	e.close(']')
}

// frameFieldNames are a frame's keys in the order frame writes them.
var frameFieldNames = [...]string{"index", "pc", "exact_pc", "sp", "cfa", "trust", "module",
	"module_offset", "function", "function_offset", "file", "line", "column", "inlined", "language", "registers"}

// frameLayout is, for frames written at one depth, the bytes before each
// field (comma, newline, indentation, key) and before the closing brace:
// a report is mostly frames, and this writes each field's framing with
// one append.
type frameLayout struct {
	depth  int
	fields [len(frameFieldNames)]string
	end    string
}

func (e *jsonEnc) frameLayout() *frameLayout {
	if l := e.frameFields; l != nil && l.depth == e.depth {
		return l
	}
	l := &frameLayout{depth: e.depth}
	indent := strings.Repeat("  ", e.depth+1)
	for i, k := range frameFieldNames {
		sep := ","
		if i == 0 {
			sep = ""
		}
		l.fields[i] = sep + "\n" + indent + `"` + k + `": `
	}
	l.end = "\n" + strings.Repeat("  ", e.depth) + "}"
	e.frameFields = l
	return l
}

// frame writes one frame object as open, key and close would.
func (e *jsonEnc) frame(f *Frame) {
	l := e.frameLayout()
	e.b = append(e.b, '{')
	e.b = append(e.b, l.fields[0]...)
	e.int(f.Index)
	e.b = append(e.b, l.fields[1]...)
	e.hex(f.PC)
	e.b = append(e.b, l.fields[2]...)
	e.bool(f.ExactPC)
	e.b = append(e.b, l.fields[3]...)
	e.hexPtr(f.SP)
	e.b = append(e.b, l.fields[4]...)
	e.hexPtr(f.CFA)
	e.b = append(e.b, l.fields[5]...)
	e.str(f.Trust)
	e.b = append(e.b, l.fields[6]...)
	e.strPtr(f.Module)
	e.b = append(e.b, l.fields[7]...)
	e.hexPtr(f.ModuleOffset)
	e.b = append(e.b, l.fields[8]...)
	e.strPtr(f.Function)
	e.b = append(e.b, l.fields[9]...)
	e.hexPtr(f.FunctionOffset)
	e.b = append(e.b, l.fields[10]...)
	e.strPtr(f.File)
	e.b = append(e.b, l.fields[11]...)
	e.intPtr(f.Line)
	e.b = append(e.b, l.fields[12]...)
	e.intPtr(f.Column)
	e.b = append(e.b, l.fields[13]...)
	e.bool(f.Inlined)
	e.b = append(e.b, l.fields[14]...)
	if f.Language == "" {
		e.str(string(LanguageNative))
	} else {
		e.str(string(f.Language))
	}
	e.b = append(e.b, l.fields[15]...)
	// registers nests a list: it writes at the depth of the frame's
	// fields, as open would have left it.
	e.depth++
	e.registers(f.Registers)
	e.depth--
	e.b = append(e.b, l.end...)
}

func (e *jsonEnc) crash(c *Crash) {
	if c == nil {
		e.null()
		return
	}
	e.open('{')
	e.key("summary")
	e.str(c.Summary)
	e.key("kind")
	e.str(c.Kind)
	e.key("details")
	e.strList(c.Details)
	e.key("instruction")
	if in := c.Instruction; in == nil {
		e.null()
	} else {
		e.open('{')
		e.key("address")
		e.hex(in.Address)
		e.key("text")
		e.str(in.Text)
		e.key("bytes")
		e.str(in.Bytes)
		e.key("memory_address")
		e.hexPtr(in.MemoryAddress)
		e.key("registers")
		e.registers(in.Registers)
		e.close('}')
	}
	e.key("access")
	if a := c.Access; a == nil {
		e.null()
	} else {
		e.open('{')
		e.key("kind")
		e.str(a.Kind)
		e.key("address")
		e.hex(a.Address)
		e.key("mapping")
		e.mapping(a.Mapping)
		e.close('}')
	}
	e.key("abort_message")
	e.strPtr(c.AbortMessage)
	e.key("exception_type")
	e.strPtr(c.ExceptionType)
	e.key("exception_message")
	e.strPtr(c.ExceptionMessage)
	e.key("terminate_message")
	e.strPtr(c.TerminateMessage)
	e.key("panic_location")
	e.strPtr(c.PanicLocation)
	e.key("panic_message")
	e.strPtr(c.PanicMessage)
	e.key("panic_thread")
	e.strPtr(c.PanicThread)
	e.key("recursion")
	e.strList(c.Recursion)
	e.key("registers")
	e.registers(c.Registers)
	e.key("reraised")
	if r := c.Reraised; r == nil {
		e.null()
	} else {
		e.open('{')
		e.key("signal")
		e.signal(&r.Signal)
		e.key("fault")
		e.signal(&r.Fault)
		e.key("signal_frame")
		e.int(r.SignalFrame)
		e.key("fault_frame")
		e.int(r.FaultFrame)
		e.close('}')
	}
	e.key("sender")
	if sd := c.Sender; sd == nil {
		e.null()
	} else {
		e.open('{')
		e.key("pid")
		e.int(sd.PID)
		e.key("uid")
		e.int(sd.UID)
		e.close('}')
	}
	e.close('}')
}

// signal writes a signal object (the core's, or a re-raised crash's).
func (e *jsonEnc) signal(s *Signal) {
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

// strList writes a list that is null when nil, as encoding/json does.
func (e *jsonEnc) strList(l []string) {
	if l == nil {
		e.null()
		return
	}
	e.strs(l)
}

// registerLayout is frameLayout for the register objects of a list at
// one depth: each frame has a dozen or more (four fields each), which
// item, key, open and close wrote a piece at a time (half of a deep
// stack's JSON time).
type registerLayout struct {
	depth       int
	first, next string // before an object: its line, "{"
	fields      [4]string
	end         string // after an object's fields: its last line, "}"
	close       string // after the last object: the list's last line, "]"
}

func (e *jsonEnc) registerLayout() *registerLayout {
	if l := e.registerFields; l != nil && l.depth == e.depth {
		return l
	}
	l := &registerLayout{depth: e.depth}
	list, object := strings.Repeat("  ", e.depth+1), strings.Repeat("  ", e.depth+2)
	l.first = "\n" + list + "{"
	l.next = "," + l.first
	for i, k := range []string{"name", "value", "how", "address"} {
		sep := ","
		if i == 0 {
			sep = ""
		}
		l.fields[i] = sep + "\n" + object + `"` + k + `": `
	}
	l.end = "\n" + list + "}"
	l.close = "\n" + strings.Repeat("  ", e.depth) + "]"
	e.registerFields = l
	return l
}

// registers writes the list as open, item, key and close would.
func (e *jsonEnc) registers(l []Register) {
	if l == nil {
		e.null()
		return
	}
	if len(l) == 0 {
		e.b = append(e.b, '[', ']')
		return
	}
	lay := e.registerLayout()
	e.b = append(e.b, '[')
	for i := range l {
		r := &l[i]
		if i == 0 {
			e.b = append(e.b, lay.first...)
		} else {
			e.b = append(e.b, lay.next...)
		}
		e.b = append(e.b, lay.fields[0]...)
		e.str(r.Name)
		e.b = append(e.b, lay.fields[1]...)
		e.hex(r.Value)
		e.b = append(e.b, lay.fields[2]...)
		e.str(r.How)
		e.b = append(e.b, lay.fields[3]...)
		e.hexPtr(r.Address)
		e.b = append(e.b, lay.end...)
	}
	e.b = append(e.b, lay.close...)
}

func (e *jsonEnc) mappings(l []Mapping) {
	if l == nil {
		e.null()
		return
	}
	e.open('[')
	for i := range l {
		e.item()
		e.mapping(&l[i])
	}
	e.close(']')
}

func (e *jsonEnc) mapping(m *Mapping) {
	if m == nil {
		e.null()
		return
	}
	e.open('{')
	e.key("start")
	e.hex(m.Start)
	e.key("end")
	e.hex(m.End)
	e.key("perms")
	e.str(m.Perms)
	e.key("offset")
	e.hex(m.Offset)
	e.key("path")
	e.strPtr(m.Path)
	e.key("dumped_size")
	e.hex(m.DumpedSize)
	e.close('}')
}
