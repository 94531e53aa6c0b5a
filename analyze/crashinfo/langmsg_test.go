package crashinfo

import (
	"encoding/binary"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/coreunwind/coreunwind/report"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/x86_64"
)

// refString lays out a reference-counted string's header (length,
// capacity, count) and characters at memBase+0x100, a NUL after them.
func refString(n, capacity uint64, chars string) []byte {
	b := make([]byte, 0x100+len(chars)+1)
	binary.LittleEndian.PutUint64(b[0x100-24:], n)
	binary.LittleEndian.PutUint64(b[0x100-16:], capacity)
	copy(b[0x100:], chars)
	return b
}

func TestReadRefString(t *testing.T) {
	for _, tc := range []struct {
		name string
		mem  []byte
		want string
		err  string
	}{
		{"runtime_error's", refString(18, 18, "negative amount -3"), "negative amount -3", ""},
		{"NUL inside: what() stops there", refString(5, 8, "ab\x00cd"), "ab", ""},
		{"length past capacity", refString(18, 3, "negative amount -3"), "", "exceeds its capacity"},
		{"no NUL after the length", refString(3, 18, "negative amount -3"), "", "no NUL"},
		{"huge length", refString(1<<40, 1<<41, "x"), "", "more than"},
		{"not UTF-8", refString(2, 2, "\xff\xfe"), "", "not UTF-8"},
		{"beyond memory", refString(100, 100, "short"), "", "string at"},
	} {
		got, err := readRefString(&fakeMem{memBase, tc.mem}, memBase+0x100)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %q, %v; want %q, error with %q", tc.name, got, err, tc.want, tc.err)
		}
	}
}

// panicMem is a crafted panic: a stack of words at memBase and, in
// memory the map calls read-only, a Location, its file name, a payload
// vtable and a message.
type panicMem struct {
	b []byte
	// userless: every frame is std's, none panicked.
	userless bool
}

const (
	pmStack   = 0x000 // the panic frames' stack: 0x000-0x100
	pmLoc     = 0x100
	pmFile    = 0x140
	pmVtable  = 0x180
	pmMessage = 0x200
	pmStr     = 0x240 // a &str: pointer, length
	pmOther   = 0x280 // a second Location
	pmTP      = 0x2a0 // the thread pointer: the TCB, whose second word is the DTV
	pmDTV     = 0x2b0 // the DTV, whose module 1 entry is the executable's TLS block
	pmTLS     = 0x2c8 // the executable's TLS block: CURRENT, then ID
	pmInner   = 0x2d0 // a thread handle's Inner: id, name pointer, name length
	pmName    = 0x2f0
	pmEnd     = 0x300
	pmMethods = 0x9000 // where the vtable's methods are
)

func newPanicMem() *panicMem {
	return &panicMem{b: make([]byte, pmEnd)}
}

func (p *panicMem) word(off int, v uint64) { binary.LittleEndian.PutUint64(p.b[off:], v) }

func (p *panicMem) location(off int, file string, line, col uint32) {
	p.word(off, memBase+pmFile)
	p.word(off+8, uint64(len(file)))
	binary.LittleEndian.PutUint32(p.b[off+16:], line)
	binary.LittleEndian.PutUint32(p.b[off+20:], col)
	copy(p.b[pmFile:], file)
}

// analyze runs the analysis of an abort through panic_with_hook called
// from reserve at file:line.
func (p *panicMem) analyze(file string, line int) *report.Crash {
	arch := x86_64.Arch{}
	f0 := unwind.NewFrame(arch.NumRegs())
	f0.Set(x86_64.RSP, memBase, unwind.SaveLoc{})
	names := []string{"abort", "std::panicking::panic_with_hook", "core::panicking::panic_fmt", "stock::reserve"}
	if p.userless {
		names[3] = "std::rt::lang_start"
	}
	frames := make([]report.Frame, len(names))
	for i := range names {
		frames[i] = report.Frame{Function: &names[i], SP: report.Ptr(report.Hex(memBase + uint64(i)*0x40))}
	}
	if file != "" {
		frames[3].File, frames[3].Line = &file, &line
	}
	methods := map[uint64]string{
		pmMethods:      "<std::panicking::panic_handler::StaticStrPayload as core::fmt::Display>::fmt",
		pmMethods + 16: "<std::panicking::panic_handler::StaticStrPayload as core::panic::PanicPayload>::take_box",
		pmMethods + 32: "<std::panicking::panic_handler::StaticStrPayload as core::panic::PanicPayload>::get::h0123456789abcdef",
		pmMethods + 48: "<std::panicking::panic_handler::FormatStringPayload as core::panic::PanicPayload>::get",
		// rustc 1.63's std: the trait BoxMeUp, and a generic payload
		// whose methods name only its parameter.
		pmMethods + 64:  "core::ptr::drop_in_place<std::panicking::begin_panic::PanicPayload<&str>>::h0123456789abcdef",
		pmMethods + 80:  "<std::panicking::begin_panic::PanicPayload<A> as core::panic::BoxMeUp>::take_box::h0123456789abcdef",
		pmMethods + 96:  "<std::panicking::begin_panic::PanicPayload<A> as core::panic::BoxMeUp>::get",
		pmMethods + 112: "core::ptr::drop_in_place<std::panicking::begin_panic::PanicPayload<u32>>",
		pmMethods + 128: "<std::panicking::begin_panic_handler::StrPanicPayload as core::panic::BoxMeUp>::take_box",
		pmMethods + 144: "<std::panicking::begin_panic_handler::StrPanicPayload as core::panic::BoxMeUp>::get",
	}
	return Analyze(&Input{
		Arch:   arch,
		Mem:    &fakeMem{memBase, p.b},
		Signal: Signal{Name: "SIGABRT"},
		Frame0: f0,
		Frames: frames,
		Mappings: []report.Mapping{
			{Start: memBase, End: memBase + pmLoc, Perms: "rw-"},
			{Start: memBase + pmLoc, End: memBase + pmEnd, Perms: "r--", Path: report.Ptr("/stock")},
		},
		FunctionAt:    func(addr uint64) (string, bool) { n, ok := methods[addr]; return n, ok },
		ThreadPointer: func() (uint64, bool) { return memBase + pmTP, true },
		DTVAt:         8,
		ExeRustSymbol: func(path string) (uint64, bool, bool) {
			switch path {
			case rustCurrent:
				return 0, true, true
			case rustThreadID:
				return 8, true, true
			case rustMainID:
				return memBase + pmDTV, false, true // the DTV's generation word
			}
			return 0, false, false
		},
	})
}

// thread lays out std's thread-locals of a thread whose handle is named
// name ("" for a thread without a handle whose ID is MAIN's).
func (p *panicMem) thread(name string) {
	p.word(pmTP+8, memBase+pmDTV)
	p.word(pmDTV+16, memBase+pmTLS)
	p.word(pmInner, 2) // the thread's id (and ID, CURRENT's neighbour)
	p.word(pmDTV, 2)   // MAIN
	if name != "" {
		p.word(pmTLS, memBase+pmInner)
		p.word(pmInner+8, memBase+pmName)
		p.word(pmInner+16, uint64(len(name)+1))
		copy(p.b[pmName:], name+"\x00")
	}
}

// TestRustThreadName: the panicking thread's name is its handle's
// CString, or "main" for a thread without a handle whose id is std's
// main thread's; nothing when the core does not prove one.
func TestRustThreadName(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(p *panicMem)
		thread string
	}{
		{"named", func(p *panicMem) { p.thread("order-worker") }, "order-worker"},
		{"main", func(p *panicMem) { p.thread("") }, "main"},
		{"not main", func(p *panicMem) { p.thread(""); p.word(pmTLS+8, 3) }, ""},
		{"no NUL", func(p *panicMem) { p.thread("order-worker"); p.b[pmName+12] = 'x'; p.word(pmDTV, 3) }, ""},
		{"no thread-locals", func(*panicMem) {}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPanicMem()
			p.standard()
			tc.edit(p)
			c := p.analyze("src/main.rs", 10)
			got := ""
			if c.PanicThread != nil {
				got = *c.PanicThread
			}
			if got != tc.thread {
				t.Errorf("thread %q, want %q", got, tc.thread)
			}
			want := "Rust panic: panicked at src/main.rs:10:40: not enough stock"
			if tc.thread != "" {
				want = "Rust panic: thread '" + tc.thread + "' panicked at src/main.rs:10:40: not enough stock"
			}
			if !strings.HasPrefix(c.Summary, want) {
				t.Errorf("summary %q, want %q", c.Summary, want)
			}
		})
	}
}

// standard lays out the panic the tests vary: a pointer to the
// Location, and a StaticStrPayload (&str) with its vtable, on the stack.
func (p *panicMem) standard() {
	p.location(pmLoc, "src/main.rs", 10, 40)
	p.word(pmStack+0x08, memBase+pmLoc)
	p.word(pmVtable+24, pmMethods)
	p.word(pmVtable+32, pmMethods+16)
	p.word(pmVtable+40, pmMethods+32)
	copy(p.b[pmMessage:], "not enough stock")
	p.word(pmStr, memBase+pmMessage)
	p.word(pmStr+8, uint64(len("not enough stock")))
	p.word(pmStack+0x50, memBase+pmStr)
	p.word(pmStack+0x58, memBase+pmVtable)
}

// vtable163 makes the payload's vtable one of rustc 1.63's std: drop
// glue, size, align, then BoxMeUp's take_box and get.
func (p *panicMem) vtable163(drop, takeBox, get uint64) {
	p.word(pmVtable, drop)
	p.word(pmVtable+24, takeBox)
	p.word(pmVtable+32, get)
	p.word(pmVtable+40, 0)
}

func TestRustPanicCrafted(t *testing.T) {
	for _, tc := range []struct {
		name       string
		edit       func(p *panicMem)
		file       string
		line       int
		summary    string
		loc, msg   string
		detailWith string
		noCaller   bool // no frame panicked: the summary names none
	}{
		{name: "location and literal message", file: "/home/u/stock/src/main.rs", line: 10,
			summary: "Rust panic: panicked at src/main.rs:10:40: not enough stock", loc: "src/main.rs:10:40", msg: "not enough stock"},
		{name: "the frame is at another line: no location", file: "/home/u/stock/src/main.rs", line: 11,
			summary: "Rust panic: panicked: not enough stock", msg: "not enough stock"},
		{name: "a second location (another line), the frame without a line: none", edit: func(p *panicMem) {
			copy(p.b[pmOther:], p.b[pmLoc:pmLoc+24])
			binary.LittleEndian.PutUint32(p.b[pmOther+16:], 3)
			p.word(pmStack+0x10, memBase+pmOther)
		}, summary: "Rust panic: panicked: not enough stock", msg: "not enough stock", detailWith: "2 panic locations"},
		{name: "file not .rs", edit: func(p *panicMem) { p.location(pmLoc, "src/main.go", 10, 40) },
			file: "src/main.go", line: 10, summary: "Rust panic: panicked: not enough stock", msg: "not enough stock"},
		{name: "location in writable memory", edit: func(p *panicMem) {
			copy(p.b[pmStack+0x80:], p.b[pmLoc:pmLoc+24])
			p.word(pmStack+0x08, memBase+pmStack+0x80)
		}, summary: "Rust panic: panicked: not enough stock", msg: "not enough stock"},
		{name: "no frame above std's", edit: func(p *panicMem) { p.userless = true },
			summary: "Rust panic: panicked", noCaller: true},
		{name: "message not UTF-8", edit: func(p *panicMem) { p.b[pmMessage] = 0xff },
			file: "src/main.rs", line: 10, summary: "Rust panic: panicked at src/main.rs:10:40", loc: "src/main.rs:10:40"},
		{name: "vtable of another type", edit: func(p *panicMem) { p.word(pmVtable+32, pmMethods+48) },
			file: "src/main.rs", line: 10, summary: "Rust panic: panicked at src/main.rs:10:40", loc: "src/main.rs:10:40"},
		{name: "message length past memory", edit: func(p *panicMem) { p.word(pmStr+8, 1<<40) },
			file: "src/main.rs", line: 10, summary: "Rust panic: panicked at src/main.rs:10:40", loc: "src/main.rs:10:40"},
		{name: "1.63: StrPanicPayload's BoxMeUp", edit: func(p *panicMem) { p.vtable163(0, pmMethods+128, pmMethods+144) },
			file: "src/main.rs", line: 10, summary: "Rust panic: panicked at src/main.rs:10:40: not enough stock", loc: "src/main.rs:10:40", msg: "not enough stock"},
		{name: "1.63: PanicPayload<A> whose drop glue is PanicPayload<&str>'s", edit: func(p *panicMem) { p.vtable163(pmMethods+64, pmMethods+80, pmMethods+96) },
			file: "src/main.rs", line: 10, summary: "Rust panic: panicked at src/main.rs:10:40: not enough stock", loc: "src/main.rs:10:40", msg: "not enough stock"},
		{name: "1.63: PanicPayload<A> without drop glue: A is not known", edit: func(p *panicMem) { p.vtable163(0, pmMethods+80, pmMethods+96) },
			file: "src/main.rs", line: 10, summary: "Rust panic: panicked at src/main.rs:10:40", loc: "src/main.rs:10:40",
			detailWith: "the panic payload is a std::panicking::begin_panic::PanicPayload<A>, which"},
		{name: "1.63: PanicPayload<A> whose drop glue is PanicPayload<u32>'s", edit: func(p *panicMem) { p.vtable163(pmMethods+112, pmMethods+80, pmMethods+96) },
			file: "src/main.rs", line: 10, summary: "Rust panic: panicked at src/main.rs:10:40", loc: "src/main.rs:10:40",
			detailWith: "the panic payload is a std::panicking::begin_panic::PanicPayload<u32>, which"},
	} {
		p := newPanicMem()
		p.standard()
		if tc.edit != nil {
			tc.edit(p)
		}
		c := p.analyze(tc.file, tc.line)
		if c == nil || c.Kind != "rust_panic" {
			t.Fatalf("%s: %+v", tc.name, c)
		}
		if want := tc.summary + ", in stock::reserve"; !strings.HasPrefix(c.Summary, want) && !(tc.noCaller && c.Summary == tc.summary) {
			t.Errorf("%s: summary %q, want %q", tc.name, c.Summary, tc.summary)
		}
		if strptr(c.PanicLocation) != tc.loc || strptr(c.PanicMessage) != tc.msg {
			t.Errorf("%s: location %q message %q, want %q %q", tc.name, strptr(c.PanicLocation), strptr(c.PanicMessage), tc.loc, tc.msg)
		}
		if tc.detailWith != "" && !strings.Contains(strings.Join(c.Details, "\n"), tc.detailWith) {
			t.Errorf("%s: details %q lack %q", tc.name, c.Details, tc.detailWith)
		}
	}
}

func strptr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// FuzzLanguageMessages: hostile bytes as a what() string's header and
// characters, and as the stack and read-only memory of a Rust panic,
// never make the readers panic, hang or allocate by a length they read;
// what they return is UTF-8.
func FuzzLanguageMessages(f *testing.F) {
	p := newPanicMem()
	p.standard()
	f.Add(p.b, 0x100)
	named := newPanicMem()
	named.standard()
	named.thread("order-worker")
	f.Add(named.b, 0x100)
	p163 := newPanicMem()
	p163.standard()
	p163.vtable163(pmMethods+64, pmMethods+80, pmMethods+96)
	f.Add(p163.b, 0x100)
	f.Add(refString(18, 18, "negative amount -3"), 0x100)
	f.Add([]byte{}, 0)
	f.Fuzz(func(t *testing.T, mem []byte, off int) {
		if len(mem) > 1<<16 || off < 0 || off > 1<<16 {
			return
		}
		if s, err := readRefString(&fakeMem{memBase, mem}, memBase+uint64(off)); err == nil && !utf8.ValidString(s) {
			t.Fatalf("not UTF-8: %q", s)
		}
		p := &panicMem{b: mem}
		if len(mem) < pmEnd {
			p.b = append(append([]byte{}, mem...), make([]byte, pmEnd-len(mem))...)
		}
		p.userless = off%2 == 1
		c := p.analyze("src/main.rs", off)
		if c == nil || c.Summary == "" || c.Kind != "rust_panic" {
			t.Fatalf("%+v", c)
		}
		if c.PanicMessage != nil && !utf8.ValidString(*c.PanicMessage) {
			t.Fatalf("message not UTF-8: %q", *c.PanicMessage)
		}
		if c.PanicThread != nil && !utf8.ValidString(*c.PanicThread) {
			t.Fatalf("thread name not UTF-8: %q", *c.PanicThread)
		}
	})
}
