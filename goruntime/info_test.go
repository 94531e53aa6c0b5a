package goruntime

import (
	"fmt"
	"testing"
)

// str puts a Go string header at addr pointing to s's bytes at data.
func (b *builder) str(addr, data uint64, s string) {
	b.put(addr, b.words(data, uint64(len(s))))
	b.put(data, []byte(s))
}

func TestLabelsSlice(t *testing.T) {
	b := newBuilder(t)
	b.r.info.labelsAs = labelsSlice
	// g.labels -> {[]{key, value string}}: two labels, out of order.
	const set, list = 0x10000, 0x11000
	b.put(set, b.words(list, 2, 2))
	b.str(list, 0x12000, "shard")
	b.str(list+16, 0x12100, "7")
	b.str(list+32, 0x12200, "role")
	b.str(list+48, 0x12300, "worker")
	g := Goroutine{LabelsAddr: set}
	if got := fmt.Sprint(b.r.Labels(b.mem, &g)); got != "[{role worker} {shard 7}]" {
		t.Errorf("labels %s", got)
	}
	// A count past the bound reads nothing.
	b.put(set, b.words(list, maxLabels+1, maxLabels+1))
	if got := b.r.Labels(b.mem, &g); got != nil {
		t.Errorf("labels %v from a list of %d", got, maxLabels+1)
	}
}

func TestLabelsMap(t *testing.T) {
	b := newBuilder(t)
	b.r.info.labelsAs, b.r.info.hmapCount, b.r.info.hmapB, b.r.info.hmapBuckets = labelsMap, 0, 9, 16
	// g.labels -> *hmap -> one bucket (B = 0): slot 0 empty, slots 1
	// and 5 full; its overflow bucket holds one more.
	const labels, hmap, bucket, overflow = 0x10000, 0x11000, 0x12000, 0x13000
	b.put(labels, b.words(hmap))
	hdr := make([]byte, 24)
	copy(hdr[16:], b.words(bucket))
	b.put(hmap, hdr)
	bk := func(addr uint64, slots map[int][2]string, next uint64) {
		buf := make([]byte, 8+8*16+8*16+8)
		for i, kv := range slots {
			buf[i] = minTopHash + 1
			k, v := addr+0x800+uint64(i)*0x40, addr+0x820+uint64(i)*0x40
			copy(buf[8+i*16:], b.words(k, uint64(len(kv[0]))))
			copy(buf[8+128+i*16:], b.words(v, uint64(len(kv[1]))))
			b.put(k, []byte(kv[0]))
			b.put(v, []byte(kv[1]))
		}
		copy(buf[8+256:], b.words(next))
		b.put(addr, buf)
	}
	bk(bucket, map[int][2]string{1: {"role", "worker"}, 5: {"shard", "7"}}, overflow)
	bk(overflow, map[int][2]string{0: {"az", "b"}}, 0)
	g := Goroutine{LabelsAddr: labels}
	if got := fmt.Sprint(b.r.Labels(b.mem, &g)); got != "[{az b} {role worker} {shard 7}]" {
		t.Errorf("labels %s", got)
	}
}

func TestPanicChainAndErrors(t *testing.T) {
	b := newBuilder(t)
	pl := &b.r.panic
	syms := b.r.b.Symbols
	const gAddr, p1, p2, types = 0x20000, 0x40000, 0x41000, 0x80000
	b.put(syms[SymFirstModuledata]+uint64(pl.moduleTypes), b.words(types))
	// A type named name of kind at typ.
	typ := func(addr uint64, kind byte, name string, off uint32) {
		tb := make([]byte, pl.typeStr+8)
		tb[pl.typeKind] = kind
		b.r.b.Order.PutUint32(tb[pl.typeStr:], off)
		b.put(addr, tb)
		b.put(types+uint64(off), append([]byte{0, byte(len(name))}, name...))
	}
	typ(0x50000, 22, "*errors.errorString", 0x10)
	typ(0x51000, 6, "main.code", 0x100)
	// g._panic = p2 (main.code(-3)), its link p1 (errors.New("disk
	// full"), recovered).
	g := b.g(1, StatusRunning, 0, 0x401000, 0xc000100f00)
	b.r.b.Order.PutUint64(g[pl.gPanic:], p2)
	b.put(gAddr, g)
	panicAt := func(addr, typ, data, link uint64, recovered bool) {
		buf := make([]byte, 128)
		copy(buf[pl.panicArg:], b.words(typ, data))
		copy(buf[pl.link:], b.words(link))
		if recovered {
			buf[pl.recovered] = 1
		}
		b.put(addr, buf)
	}
	panicAt(p1, 0x50000, 0x60000, 0, true)
	b.str(0x60000, 0x61000, "disk full")
	panicAt(p2, 0x51000, 0x62000, p1, false)
	b.put(0x62000, b.words(^uint64(2))) // -3
	chain := b.r.Panics(b.mem, &Goroutine{Addr: gAddr})
	want := "[{disk full *errors.errorString true false false} {main.code(-3) main.code false false false}]"
	if got := fmt.Sprint(chain); got != want {
		t.Errorf("chain %s\nwant %s", got, want)
	}
	// A cycle of links ends at maxPanics.
	panicAt(p1, 0x50000, 0x60000, p2, true)
	if n := len(b.r.Panics(b.mem, &Goroutine{Addr: gAddr})); n != maxPanics {
		t.Errorf("a cycle of two panics read as %d", n)
	}
}

func TestFatalMessage(t *testing.T) {
	b := newBuilder(t)
	b.r.b.Symbols[SymThrowClosure] = 0x401234
	// throw's frame: other words, then the closure: its pc and the
	// captured message.
	const sp = 0x30000
	b.put(sp, b.words(7, 0x401234, 0x31000, 21, 9))
	b.put(0x31000, []byte("concurrent map writes"))
	if msg, ok := b.r.FatalMessage(b.mem, sp, sp+40); !ok || msg != "concurrent map writes" {
		t.Errorf("message %q, %v", msg, ok)
	}
	if _, ok := b.r.FatalMessage(b.mem, sp, sp+maxFatalFrame+8); ok {
		t.Error("a frame past the bound is searched")
	}
}

func TestWaitMinutes(t *testing.T) {
	g := Goroutine{Status: StatusWaiting, WaitSince: 1e9}
	for _, tc := range []struct {
		now  int64
		want string
	}{{0, "0 false"}, {1e9 + 59e9, "0 true"}, {1e9 + 185e9, "3 true"}, {5e8, "0 true"}} {
		m, ok := WaitMinutes(&g, tc.now)
		if got := fmt.Sprint(m, ok); got != tc.want {
			t.Errorf("now %d: %s, want %s", tc.now, got, tc.want)
		}
	}
	running := Goroutine{Status: StatusRunning, WaitSince: 1e9}
	if _, ok := WaitMinutes(&running, 1e12); ok {
		t.Error("a running goroutine has waited")
	}
}
