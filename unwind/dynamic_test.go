package unwind

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
	"time"
)

func procInfo(name string, start, end uint64, regions ...*DynRegion) *DynInfo {
	return &DynInfo{StartIP: start, EndIP: end, Format: DynFormatDynamic,
		Proc: &DynProcInfo{Name: name, Regions: regions}}
}

func TestDynListRegisterCancel(t *testing.T) {
	var l DynList
	a, b, c := procInfo("a", 0x100, 0x200), procInfo("b", 0x200, 0x300), procInfo("c", 0x300, 0x400)
	for _, d := range []*DynInfo{a, b, c} {
		if err := l.Register(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Register(b); !errors.Is(err, ErrDynRegistered) {
		t.Errorf("second Register: %v", err)
	}
	if got := l.Entries(); !reflect.DeepEqual(got, []*DynInfo{c, b, a}) {
		t.Errorf("entries not newest first")
	}
	gen := l.Generation()
	if err := l.Cancel(b); err != nil { // the middle one
		t.Fatal(err)
	}
	if err := l.Cancel(b); !errors.Is(err, ErrDynNotRegistered) {
		t.Errorf("second Cancel: %v", err)
	}
	if l.Generation() == gen {
		t.Error("Cancel did not bump the generation")
	}
	if got := l.Entries(); !reflect.DeepEqual(got, []*DynInfo{c, a}) || l.Len() != 2 {
		t.Errorf("after cancelling the middle entry: %d entries", l.Len())
	}
	l.Cancel(c) // head
	l.Cancel(a) // last
	if l.Len() != 0 || len(l.Entries()) != 0 {
		t.Errorf("list not empty")
	}
	var other DynList
	other.Register(a)
	if err := l.Cancel(a); !errors.Is(err, ErrDynNotRegistered) {
		t.Errorf("Cancel from the wrong list: %v", err)
	}
}

// Registration and cancellation must not depend on how many entries are
// registered: cancelling the oldest of many entries takes as long as
// cancelling the newest.
func TestDynListConstantTime(t *testing.T) {
	const n = 200000
	var l DynList
	infos := make([]*DynInfo, n)
	for i := range infos {
		infos[i] = procInfo("", uint64(i)*16, uint64(i)*16+16)
	}
	start := time.Now()
	for _, d := range infos {
		l.Register(d)
	}
	for i := n - 1; i >= 0; i -= 2 { // the oldest first, from the tail
		l.Cancel(infos[i])
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("%d registrations and %d cancellations took %v", n, n/2, el)
	}
	if l.Len() != n/2 {
		t.Errorf("%d entries left, want %d", l.Len(), n/2)
	}
}

func BenchmarkDynRegisterCancel(b *testing.B) {
	var l DynList
	for i := 0; i < 100000; i++ {
		l.Register(procInfo("", uint64(i)*16, uint64(i)*16+16))
	}
	d := procInfo("x", 1<<40, 1<<40+16)
	b.ReportAllocs()
	for b.Loop() {
		l.Register(d)
		l.Cancel(d)
	}
}

func TestDynListGenerationInvalidatesLookups(t *testing.T) {
	var l DynList
	a := procInfo("a", 0x1000, 0x1100)
	l.Register(a)
	x := l.Index()
	if l.Index() != x {
		t.Error("index rebuilt without a registration")
	}
	if l.Lookup(0x1050) != a {
		t.Fatal("a not found")
	}
	// Code regenerated at the same address: the new registration wins,
	// and the cached index must not hide it.
	a2 := procInfo("a2", 0x1000, 0x1100)
	l.Register(a2)
	if l.Index() == x {
		t.Error("index not rebuilt after Register")
	}
	if got := l.Lookup(0x1050); got != a2 {
		t.Errorf("lookup after re-registration: %v", got.Name())
	}
	l.Cancel(a2)
	l.Cancel(a)
	if got := l.Lookup(0x1050); got != nil {
		t.Errorf("cancelled entry %q still found", got.Name())
	}
}

func TestDynIndexOverlapAndBounds(t *testing.T) {
	big := procInfo("big", 0x1000, 0x9000)
	small := procInfo("small", 0x2000, 0x2100)
	x := NewDynIndex([]*DynInfo{small, big, procInfo("empty", 0x5000, 0x5000)}, 1)
	for _, c := range []struct {
		ip   uint64
		want string
	}{{0xfff, ""}, {0x1000, "big"}, {0x2000, "small"}, {0x20ff, "small"}, {0x2100, "big"}, {0x5000, "big"}, {0x8fff, "big"}, {0x9000, ""}} {
		got := ""
		if d := x.Lookup(c.ip); d != nil {
			got = d.Name()
		}
		if got != c.want {
			t.Errorf("lookup %#x: %q, want %q", c.ip, got, c.want)
		}
	}
}

func TestSortOpsOnlyWhenUnsorted(t *testing.T) {
	r := &DynRegion{InsnCount: 9, Ops: []DynOp{
		OpSpillFPRel(QPTrue, 4, 3, -8),
		OpAdd(QPTrue, 5, 7, -0x18),
		OpAdd(QPTrue, 0, 7, -8),
		OpSpillSPRel(QPTrue, 0, 6, 0),
		OpSaveReg(QPTrue, 1, 7, 6),
	}}
	if r.OpsSorted() {
		t.Fatal("unsorted ops reported sorted")
	}
	if !r.SortOps() {
		t.Fatal("SortOps did not sort")
	}
	want := []DynOp{OpAdd(QPTrue, 0, 7, -8), OpSpillSPRel(QPTrue, 0, 6, 0), OpSaveReg(QPTrue, 1, 7, 6),
		OpSpillFPRel(QPTrue, 4, 3, -8), OpAdd(QPTrue, 5, 7, -0x18)}
	if !reflect.DeepEqual(r.Ops, want) {
		t.Errorf("sorted: %v\nwant    %v", r.Ops, want)
	}
	if r.SortOps() {
		t.Error("sorted ops sorted again")
	}
}

func TestOpBuilders(t *testing.T) {
	for _, c := range []struct {
		op   DynOp
		want DynOp
	}{
		{OpStop(), DynOp{Tag: DynStop, When: -1}},
		{OpLabelState(7), DynOp{Tag: DynLabelState, When: -1, Val: 7}},
		{OpCopyState(7), DynOp{Tag: DynCopyState, When: -1, Val: 7}},
		{OpPopFrames(2, 9, 1), DynOp{Tag: DynPopFrames, QP: 2, When: 9, Val: 1}},
		{OpAlias(0, 3, 0x4000), DynOp{Tag: DynAlias, When: 3, Val: 0x4000}},
		{OpAdd(0, 1, 7, -16), DynOp{Tag: DynAdd, When: 1, Reg: 7, Val: ^uint64(15)}},
	} {
		if c.op != c.want {
			t.Errorf("%v, want %v", c.op, c.want)
		}
	}
	if DynSpillSPRel.String() != "spill_sp_rel" || DynOpTag(42).String() != "DynOpTag(42)" {
		t.Error("DynOpTag names")
	}
}

func TestRegionSpans(t *testing.T) {
	p := &DynProcInfo{Regions: []*DynRegion{{InsnCount: 4}, {InsnCount: 10}, {InsnCount: -3}, {InsnCount: 100}}}
	got := p.Spans(20)
	want := [][2]int64{{0, 4}, {4, 10}, {17, 3}, {20, 0}}
	for i, s := range got {
		if [2]int64{s.Start, s.Len} != want[i] {
			t.Errorf("span %d: [%d,+%d), want %v", i, s.Start, s.Len, want[i])
		}
	}
	if RegionInfoSize(3, 8) != 16+3*16 || RegionInfoSize(3, 4) != 12+3*12 || RegionInfoSize(0, 8) != 16 {
		t.Errorf("RegionInfoSize: %d %d", RegionInfoSize(3, 8), RegionInfoSize(3, 4))
	}
}

// sampleList is a list with every format, a shared region chain and ops
// that are not sorted in memory.
func sampleList() []*DynInfo {
	shared := &DynRegion{InsnCount: -2, Ops: []DynOp{OpPopFrames(QPTrue, 0, 1)}}
	pro := &DynRegion{InsnCount: 5, Ops: []DynOp{OpAdd(QPTrue, 1, 7, -32), OpAdd(QPTrue, 0, 7, -8), OpSpillSPRel(QPTrue, 0, 3, 0)}}
	return []*DynInfo{
		{StartIP: 0x40000, EndIP: 0x40020, GP: 0x99, Format: DynFormatDynamic,
			Proc: &DynProcInfo{Name: "jit_one", Handler: 0x1234, Flags: 5, Regions: []*DynRegion{pro, shared}}},
		{StartIP: 0x40100, EndIP: 0x40180, Format: DynFormatRemoteTable, LoadOffset: 0x10,
			Table: &DynTableInfo{Name: "jit_table", Segbase: 0x40000, TableLen: 2, TableData: 0x48000}},
		{StartIP: 0x40200, EndIP: 0x40240, Format: DynFormatTable,
			Table: &DynTableInfo{Name: "", Segbase: 0x40200, TableLen: 1, TableData: 0x48100}},
	}
}

func TestReadDynListOrdersAndSizes(t *testing.T) {
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, ptr := range []int{4, 8} {
			w := newDynWriter(order, ptr)
			infos := sampleList()
			addr, entries := w.list(7, infos...)
			x, warns, err := ReadDynList(w.m, addr, DefaultDynLimits)
			if err != nil || len(warns) > 0 {
				t.Fatalf("%v/%d: %v %v", order, ptr, err, warns)
			}
			if x.Generation != 7 || len(x.Infos) != len(infos) {
				t.Fatalf("%v/%d: generation %d, %d entries", order, ptr, x.Generation, len(x.Infos))
			}
			for i, got := range x.Infos {
				want := infos[i]
				want.Addr = entries[i]
				if want.Proc != nil {
					want.Proc.NameAddr = got.Proc.NameAddr
					for _, r := range want.Proc.Regions {
						r.SortOps()
					}
				}
				if want.Table != nil {
					want.Table.NameAddr = got.Table.NameAddr
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%v/%d entry %d:\n got %+v %+v %+v\nwant %+v %+v %+v", order, ptr, i, got, got.Proc, got.Table, want, want.Proc, want.Table)
				}
			}
			if d := x.Lookup(0x40110); d == nil || d.Name() != "jit_table" || d.ProcInfo().Format != FormatRemoteTable {
				t.Errorf("%v/%d: lookup of the table entry", order, ptr)
			}
		}
	}
}

func TestReadDynListHostile(t *testing.T) {
	w := newDynWriter(binary.LittleEndian, 8)
	addr, entries := w.list(1, sampleList()...)
	w.link(entries[2], entries[0]) // a cycle
	x, warns, err := ReadDynList(w.m, addr, DefaultDynLimits)
	if err != nil || len(x.Infos) != 3 || len(warns) != 1 || !errors.Is(warns[0], ErrDynList) {
		t.Errorf("cycle: %v, %d entries, warnings %v", err, len(x.Infos), warns)
	}

	// A region claiming 2^31 operations, a bad pointer in the middle,
	// and an entry of an unknown format: each is a warning; the good
	// entries stay.
	w = newDynWriter(binary.BigEndian, 8)
	infos := sampleList()
	addr, entries = w.list(1, infos...)
	regionAddr := w.lay.u + w.lay.uRegions
	ra := w.m.order.Uint64(w.m.segs[entries[0]][regionAddr:])
	w.m.order.PutUint32(w.m.segs[ra][w.lay.rOpCount:], 1<<31)
	w.m.order.PutUint32(w.m.segs[entries[2]][w.lay.format:], 77)
	w.m.reads = 0
	x, warns, err = ReadDynList(w.m, addr, DefaultDynLimits)
	if err != nil || len(x.Infos) != 2 || len(warns) != 2 {
		t.Errorf("hostile counts: %v, %d entries, warnings %v", err, len(x.Infos), warns)
	}
	if x.Infos[0].Name() != "jit_one" || x.Infos[0].Proc.Regions != nil || x.Infos[0].Err == nil {
		t.Errorf("a procedure with a bad region keeps its name and drops its regions")
	}
	if w.m.reads > 50 {
		t.Errorf("%d reads for three entries", w.m.reads)
	}
	w.link(entries[0], 0xdead0000) // points nowhere
	x, warns, _ = ReadDynList(w.m, addr, DefaultDynLimits)
	if len(x.Infos) != 1 || len(warns) != 2 {
		t.Errorf("bad next pointer: %d entries, warnings %v", len(x.Infos), warns)
	}
	if _, _, err := ReadDynList(w.m, 0x10, DefaultDynLimits); !errors.Is(err, ErrUnavailable) {
		t.Errorf("unreadable list header: %v", err)
	}
}

func TestReadDynListLimits(t *testing.T) {
	w := newDynWriter(binary.LittleEndian, 8)
	var infos []*DynInfo
	for i := 0; i < 20; i++ {
		infos = append(infos, procInfo("p", uint64(i)*0x100+0x1000, uint64(i)*0x100+0x1080))
	}
	addr, _ := w.list(1, infos...)
	lim := DefaultDynLimits
	lim.MaxEntries = 5
	x, warns, _ := ReadDynList(w.m, addr, lim)
	if len(x.Infos) != 5 || len(warns) != 1 {
		t.Errorf("limit 5: %d entries, warnings %v", len(x.Infos), warns)
	}
}

// FuzzReadDynList reads a list out of arbitrary memory: a few KiB mapped
// at 0x1000, the list header at its start, every pointer and count
// attacker-chosen. It must return (entries and warnings) quickly, never
// panic or allocate by a count.
func FuzzReadDynList(f *testing.F) {
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, ptr := range []int{4, 8} {
			w := newDynWriter(order, ptr)
			w.next = 0x1000
			addr, entries := w.list(3, sampleList()...)
			// Flatten into one image starting at the list header.
			img := flatten(w.m, 0x1000)
			f.Add(img, ptr == 8, order == binary.BigEndian, addr-0x1000)
			w.link(entries[1], entries[0])
			f.Add(flatten(w.m, 0x1000), ptr == 8, order == binary.BigEndian, addr-0x1000)
		}
	}
	f.Fuzz(func(t *testing.T, img []byte, ptr8, be bool, listOff uint64) {
		if len(img) > 1<<16 {
			return
		}
		m := newMemSpace(binary.LittleEndian, 4)
		if be {
			m.order = binary.BigEndian
		}
		if ptr8 {
			m.ptr = 8
		}
		m.segs[0x1000] = img
		lim := DynLimits{MaxEntries: 1000, MaxRegions: 64, MaxOpsPerRegion: 1024, MaxTotalOps: 1 << 14, MaxName: 128}
		x, _, err := ReadDynList(m, 0x1000+listOff%uint64(len(img)+1), lim)
		if err != nil {
			return
		}
		if len(x.Infos) > lim.MaxEntries {
			t.Fatalf("%d entries", len(x.Infos))
		}
		for _, d := range x.Infos {
			if d.Proc != nil {
				if len(d.Proc.Name) > lim.MaxName {
					t.Fatalf("name of %d bytes", len(d.Proc.Name))
				}
				for _, r := range d.Proc.Regions {
					if !r.OpsSorted() {
						t.Fatal("ops not sorted")
					}
				}
				d.Proc.Spans(int64(d.EndIP - d.StartIP))
			}
			x.Lookup(d.StartIP)
		}
	})
}

// flatten copies the segments of m into one image based at base.
func flatten(m *memSpace, base uint64) []byte {
	var img []byte
	for _, a := range sortedKeys(m.segs) {
		b := m.segs[a]
		end := a - base + uint64(len(b))
		for uint64(len(img)) < end {
			img = append(img, 0)
		}
		copy(img[a-base:], b)
	}
	return img
}
