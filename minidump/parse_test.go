package minidump

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseCrafted(t *testing.T) {
	d, err := Parse(crafted())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) > 0 {
		t.Errorf("warnings: %q", d.Warnings)
	}
	if len(d.Threads) != 1 || d.Threads[0].ID != 42 || d.Threads[0].Context.PC() != 0x401000 || d.Threads[0].Context.SP() != 0x7fff0000 {
		t.Fatalf("threads: %+v", d.Threads)
	}
	g, err := d.Threads[0].Context.GRegs()
	if err != nil || len(g) != 27*8 || le.Uint64(g[16*8:]) != 0x401000 || le.Uint64(g[19*8:]) != 0x7fff0000 || le.Uint64(g[4*8:]) != 0x7fff0020 {
		t.Errorf("gregset: rip %#x rsp %#x rbp %#x, %v", le.Uint64(g[16*8:]), le.Uint64(g[19*8:]), le.Uint64(g[4*8:]), err)
	}
	m := d.Modules[0]
	if m.Name != "/bin/prog" || m.BuildID() != "deadbeef0102030405060708090a0b0c0d0e0f10" {
		t.Errorf("module %q build ID %q", m.Name, m.BuildID())
	}
	// Breakpad's identifier: the first three GUID fields byte-swapped.
	if got := m.DebugID(); got != "EFBEADDE0201040305060708090A0B0C0" {
		t.Errorf("debug ID %s", got)
	}
	if e := d.Exception; e == nil || e.Code != 11 || e.Flags != 1 || e.Address != 0x10 || e.ThreadID != 42 || !e.Context.Valid() {
		t.Errorf("exception %+v", d.Exception)
	}
	wantMaps := []MapsEntry{{0x400000, 0x402000, "r-xp", 0, 12, "/bin/prog"}, {0x7fff0000, 0x7fff1000, "rw-p", 0, 0, "[stack]"}}
	if !reflect.DeepEqual(d.Linux.Maps, wantMaps) {
		t.Errorf("maps %+v", d.Linux.Maps)
	}
	if !reflect.DeepEqual(d.Linux.Auxv, []AuxEntry{{9, 0x401000}, {33, 0x7ff00000}}) || !reflect.DeepEqual(d.Linux.CmdLine, []string{"prog", "-x"}) {
		t.Errorf("auxv %+v cmdline %q", d.Linux.Auxv, d.Linux.CmdLine)
	}
	if len(d.Memory) != 1 || len(d.Bytes(d.Memory[0])) != 64 {
		t.Errorf("memory %+v", d.Memory)
	}
}

// TestParseHostile: sizes, counts and RVAs that lie are warnings (or for
// the header, errors), never a panic or an allocation by the lie.
func TestParseHostile(t *testing.T) {
	good := crafted()
	d0, _ := Parse(good)
	streamOff := func(st StreamType) int {
		for i, e := range d0.Streams {
			if e.Type == st {
				return int(d0.Header.DirectoryRVA) + i*directorySize
			}
		}
		t.Fatalf("no %v", st)
		return 0
	}
	tests := []struct {
		name    string
		edit    func(b []byte)
		wantErr error
		warn    string
	}{
		{"bad signature", func(b []byte) { b[0] = 'X' }, ErrNotMinidump, ""},
		{"bad version", func(b []byte) { le.PutUint32(b[4:], 1) }, ErrNotMinidump, ""},
		{"directory past the end", func(b []byte) { le.PutUint32(b[12:], 0xfffffff0) }, nil, ""},
		{"huge stream count", func(b []byte) { le.PutUint32(b[8:], 0xffffffff) }, nil, ""},
		{"thread count lies", func(b []byte) {
			off := le.Uint32(b[streamOff(ThreadListStream)+8:])
			le.PutUint32(b[off:], 0x7fffffff)
		}, nil, "list claims 2147483647 entries"},
		{"stream past the end", func(b []byte) { le.PutUint32(b[streamOff(ModuleListStream)+4:], 0xffffff00) }, nil, "ModuleListStream"},
		{"memory past the end", func(b []byte) {
			off := le.Uint32(b[streamOff(MemoryListStream)+8:])
			le.PutUint32(b[off+4+12:], 0xfffffff0)
		}, nil, "past the end of the file"},
		{"memory wraps", func(b []byte) {
			off := le.Uint32(b[streamOff(MemoryListStream)+8:])
			le.PutUint64(b[off+4:], 0xffffffffffffffe0)
		}, nil, "wraps around"},
		{"context too short", func(b []byte) {
			off := le.Uint32(b[streamOff(ExceptionStream)+8:])
			le.PutUint32(b[off+160:], 16)
		}, nil, "context of 16 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := append([]byte(nil), good...)
			tc.edit(b)
			d, err := Parse(b)
			switch {
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
				return
			case tc.warn == "":
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("err %v, want a FormatError", err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(d.Warnings, "\n"), tc.warn) {
				t.Errorf("warnings %q, want %q", d.Warnings, tc.warn)
			}
		})
	}
}

// TestWindowsPaddedList: Windows' writers pad a list's 4-byte count to 8;
// the padding is recognised by the stream's size.
func TestWindowsPaddedList(t *testing.T) {
	var b builder
	mem := le.AppendUint32(nil, 1)
	mem = le.AppendUint32(mem, 0) // padding
	mem = le.AppendUint64(mem, 0x1000)
	mem = le.AppendUint32(mem, 4)
	mem = le.AppendUint32(mem, 0) // the RVA, set below
	b.stream(MemoryListStream, mem)
	data := b.bytes()
	le.PutUint32(data[headerSize+20:], headerSize) // the header's bytes: 4 are enough
	d, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Memory) != 1 || d.Memory[0].Start != 0x1000 {
		t.Errorf("memory %+v, warnings %q", d.Memory, d.Warnings)
	}
}
