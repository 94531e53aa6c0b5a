package hppa

import (
	"debug/elf"
	"fmt"
	"sort"
)

// Machine is a small PA-RISC 2.0W (wide) interpreter for tests: nothing on
// this host runs PA 2.0W code, so tests run real hppa64-linux-gnu-gcc
// output here from _start until it faults, and the stacks the unwinder
// then walks are what the compiled code really did. It implements the
// instructions gcc -O1 emits for the test programs (loads and stores in
// their short, long and indexed forms, ldo/ldil/addil, the arithmetic and
// logical three-register ops, extrd, compare-and-branch, b,l / bve / bv)
// with the instruction address queue (delay slots) and nullification.
// Anything else stops it with an error naming the word.
type Machine struct {
	GR          [32]uint64
	PC, NPC     uint64            // the instruction address queue: front, back
	Mem         map[uint64][]byte // pages by address
	Fault       error             // why Run stopped
	FaultAddr   uint64
	CallStack   []uint64 // return addresses of the calls made and not returned, innermost last
	nullifyNext bool
	Steps       int
	// Interruptions are the signals DeliverHPUXSignal delivered, oldest
	// first.
	Interruptions []Interruption
}

// PageSize is the interpreter's memory granule.
const PageSize = 0x1000

// NewMachine loads f's PT_LOAD segments and gives it a stack at stackLo
// (stacks grow up) of stackSize bytes; sp starts 256 bytes in, leaving the
// frame marker and argument area the entry routine writes below its sp.
// dp is set to the .dlt section (gcc's data linkage table base).
func NewMachine(f *elf.File, stackLo, stackSize uint64) (*Machine, error) {
	m := &Machine{Mem: map[uint64][]byte{}}
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		data := make([]byte, p.Filesz)
		if _, err := p.ReadAt(data, 0); err != nil && p.Filesz > 0 {
			return nil, err // (a bss-only segment reads as EOF)
		}
		m.mapRange(p.Vaddr, p.Memsz)
		m.Write(p.Vaddr, data)
	}
	m.mapRange(stackLo, stackSize)
	m.GR[30] = stackLo + 0x100
	if s := f.Section(".dlt"); s != nil {
		m.GR[27] = s.Addr
	}
	m.PC = f.Entry
	m.NPC = f.Entry + 4
	return m, nil
}

func (m *Machine) mapRange(addr, size uint64) {
	for p := addr &^ (PageSize - 1); p < addr+size; p += PageSize {
		if m.Mem[p] == nil {
			m.Mem[p] = make([]byte, PageSize)
		}
	}
}

// Read copies memory at addr into b; false if any byte is unmapped.
func (m *Machine) Read(addr uint64, b []byte) bool {
	for i := range b {
		pg := m.Mem[(addr+uint64(i))&^(PageSize-1)]
		if pg == nil {
			return false
		}
		b[i] = pg[(addr+uint64(i))&(PageSize-1)]
	}
	return true
}

// Write copies b to addr; false if any byte is unmapped.
func (m *Machine) Write(addr uint64, b []byte) bool {
	for i := range b {
		pg := m.Mem[(addr+uint64(i))&^(PageSize-1)]
		if pg == nil {
			return false
		}
		pg[(addr+uint64(i))&(PageSize-1)] = b[i]
	}
	return true
}

// Runs returns the mapped memory as contiguous runs, by address.
func (m *Machine) Runs() [][2]uint64 {
	var pages []uint64
	for p := range m.Mem {
		pages = append(pages, p)
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i] < pages[j] })
	var runs [][2]uint64
	for _, p := range pages {
		if n := len(runs); n > 0 && runs[n-1][1] == p {
			runs[n-1][1] += PageSize
			continue
		}
		runs = append(runs, [2]uint64{p, p + PageSize})
	}
	return runs
}

// ErrTrap is a conditional trap (addi,tc): millicode division raises it
// for a zero divisor, which the kernel reports as SIGFPE.
var ErrTrap = fmt.Errorf("conditional trap")

// ErrSegv is the fault a load or store to unmapped memory raises.
var ErrSegv = fmt.Errorf("segmentation fault")

// Run executes until a fault or maxSteps instructions.
func (m *Machine) Run(maxSteps int) error {
	for ; m.Steps < maxSteps; m.Steps++ {
		if err := m.step(); err != nil {
			m.Fault = err
			return err
		}
	}
	return fmt.Errorf("no fault after %d instructions", maxSteps)
}

func lowSign(v uint32, bits uint) int64 {
	x := int64(v>>1) & (1<<(bits-1) - 1)
	if v&1 != 0 {
		x -= 1 << (bits - 1)
	}
	return x
}

func signExt(v uint64, bits uint) int64 { return int64(v<<(64-bits)) >> (64 - bits) }

func (m *Machine) load(addr uint64, size int) (uint64, error) {
	var b [8]byte
	if !m.Read(addr, b[:size]) {
		m.FaultAddr = addr
		return 0, ErrSegv
	}
	var v uint64
	for i := 0; i < size; i++ {
		v = v<<8 | uint64(b[i])
	}
	return v, nil
}

func (m *Machine) store(addr uint64, size int, v uint64) error {
	var b [8]byte
	for i := size - 1; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
	if !m.Write(addr, b[:size]) {
		m.FaultAddr = addr
		return ErrSegv
	}
	return nil
}

func (m *Machine) set(t int, v uint64) {
	if t != 0 {
		m.GR[t] = v
	}
}

// step executes the instruction at the front of the queue.
func (m *Machine) step() error {
	w32, err := m.load(m.PC, 4)
	if err != nil {
		return fmt.Errorf("instruction fetch at %#x: %w", m.PC, err)
	}
	w := uint32(w32)
	next := m.NPC + 4 // the back of the queue advances unless a branch says otherwise
	if m.nullifyNext {
		m.nullifyNext = false
		m.PC, m.NPC = m.NPC, next
		return nil
	}
	op := w >> 26
	b, r := int(w>>21&31), int(w>>16&31)
	t := int(w & 31)
	sizes := [4]int{1, 2, 4, 8}
	switch op {
	case 0x0d: // ldo i(b),r
		m.set(r, m.GR[b]+uint64(lowSign(w&0x3fff, 14)))
	case 0x08: // ldil L%i,b
		m.set(b, uint64(im21(w)))
	case 0x0a: // addil L%i,b,%r1
		m.set(1, m.GR[b]+uint64(im21(w)))
	case 0x02: // three-register arithmetic and logic: t = r op b
		x, y := m.GR[r], m.GR[b]
		if w>>6&0x3f == 0x22 { // cmpclr,cond r,b,t: t = 0, nullify the next if cond
			if w>>5&1 == 0 { // the 32-bit compare
				x, y = uint64(int64(int32(x))), uint64(int64(int32(y)))
			}
			cond, err := compareCond(w>>13&7, x, y)
			if err != nil {
				return fmt.Errorf("%#x: cmpclr %#08x: %w", m.PC, w, err)
			}
			if w>>12&1 != 0 {
				cond = !cond
			}
			m.set(t, 0)
			m.nullifyNext = cond
			break
		}
		var v uint64
		switch ext := w >> 6 & 0x3f; ext {
		case 0x09:
			v = x | y
		case 0x08:
			v = x & y
		case 0x0a:
			v = x ^ y
		case 0x18, 0x28, 0x38, 0x1c:
			v = x + y
		case 0x10, 0x30:
			v = x - y
		case 0x19, 0x1a, 0x1b, 0x29, 0x2a, 0x2b:
			v = x<<(ext&3) + y
		default:
			return fmt.Errorf("%#x: unsupported arithmetic %#08x (ext %#x)", m.PC, w, ext)
		}
		if c := w >> 13 & 7; c != 0 {
			// Logical ops nullify the next instruction on a condition
			// of the result (or,<> is how 32-bit gcc tests for zero).
			ext := w >> 6 & 0x3f
			if ext != 0x08 && ext != 0x09 && ext != 0x0a {
				return fmt.Errorf("%#x: conditional nullification in %#08x unsupported", m.PC, w)
			}
			res := v
			if w>>5&1 == 0 { // the 32-bit condition
				res = uint64(int64(int32(v)))
			}
			var cond bool
			switch c {
			case 1:
				cond = res == 0
			case 2:
				cond = int64(res) < 0
			case 3:
				cond = int64(res) <= 0
			case 7:
				cond = res&1 != 0
			default:
				return fmt.Errorf("%#x: logical condition %d in %#08x unsupported", m.PC, c, w)
			}
			if w>>12&1 != 0 {
				cond = !cond
			}
			m.nullifyNext = cond
		}
		m.set(t, v)
	case 0x03: // short or indexed loads and stores
		ext := int(w >> 6 & 0xf)
		short := w>>12&1 != 0
		if ext >= 8 { // store: value in r, im5 in the t field
			if !short {
				return fmt.Errorf("%#x: indexed store %#08x", m.PC, w)
			}
			d := lowSign(w&0x1f, 5)
			addr, mod := m.GR[b]+uint64(d), w>>5&1 != 0
			if mod && w>>13&1 == 0 { // ,ma
				addr = m.GR[b]
			}
			if err := m.store(addr, sizes[ext&3], m.GR[r]); err != nil {
				return err
			}
			if mod {
				m.set(b, m.GR[b]+uint64(d))
			}
			break
		}
		if ext > 3 {
			return fmt.Errorf("%#x: unsupported load/store %#08x", m.PC, w)
		}
		var addr uint64
		if short {
			addr = m.GR[b] + uint64(lowSign(uint32(r), 5))
		} else {
			x := m.GR[r]
			if w>>13&1 != 0 {
				x <<= ext
			}
			addr = m.GR[b] + x
		}
		v, err := m.load(addr, sizes[ext])
		if err != nil {
			return err
		}
		m.set(t, v)
	case 0x10, 0x11, 0x12: // ldb, ldh, ldw i(b),r
		v, err := m.load(m.GR[b]+uint64(lowSign(w&0x3fff, 14)), sizes[op-0x10])
		if err != nil {
			return err
		}
		m.set(r, v)
	case 0x18, 0x19, 0x1a: // stb, sth, stw r,i(b)
		if err := m.store(m.GR[b]+uint64(lowSign(w&0x3fff, 14)), sizes[op-0x18], m.GR[r]); err != nil {
			return err
		}
	case 0x14, 0x1c: // ldd / std long displacement, optional ,ma / ,mb
		if w&2 != 0 {
			return fmt.Errorf("%#x: unsupported %#08x (fldd/fstd)", m.PC, w)
		}
		d := int64(w>>4&0x3ff) << 3
		if w&1 != 0 {
			d -= 1 << 13
		}
		addr := m.GR[b] + uint64(d)
		mod := w&8 != 0
		if mod && w&4 == 0 { // ,ma
			addr = m.GR[b]
		}
		if op == 0x1c {
			if err := m.store(addr, 8, m.GR[r]); err != nil {
				return err
			}
		} else {
			v, err := m.load(addr, 8)
			if err != nil {
				return err
			}
			if mod {
				m.set(b, m.GR[b]+uint64(d))
			}
			m.set(r, v)
			break
		}
		if mod {
			m.set(b, m.GR[b]+uint64(d))
		}
	case 0x36: // extrd,u / extrd,s r,pos,len,t (fixed)
		if w>>13&7 != 0 {
			return fmt.Errorf("%#x: conditional extrd %#08x unsupported", m.PC, w)
		}
		pos := int(w>>5&31) | int(w>>11&1)<<5
		length := 32 - int(w&31) + 32*int(w>>12&1)
		v := m.GR[b] >> (63 - pos)
		if length < 64 {
			v &= 1<<length - 1
		}
		if w>>10&1 != 0 {
			v = uint64(signExt(v, uint(length)))
		}
		m.set(r, v)
	case 0x3c, 0x3d: // depd / depdi[,z] val,pos,len,t (fixed position)
		if w>>13&7 != 0 {
			return fmt.Errorf("%#x: conditional deposit %#08x unsupported", m.PC, w)
		}
		cpos := int(w>>5&31) | int(w>>11&1)<<5
		length := 32 - int(w&31) + 32*int(w>>12&1)
		val := m.GR[r]
		if op == 0x3d {
			val = uint64(lowSign(uint32(r), 5))
		}
		mask := uint64(1)<<length - 1
		if length == 64 {
			mask = ^uint64(0)
		}
		mask <<= cpos
		v := val << cpos & mask
		if w>>10&1 != 0 { // not ,z: the other bits stay
			v |= m.GR[b] &^ mask
		}
		m.set(b, v)
	case 0x2c, 0x2d: // addi,tc / addi i,r,t: the ,tc form traps when the condition holds
		v := m.GR[b] + uint64(lowSign(w&0x7ff, 11)) // source in bits 21..25, target in 16..20
		if c := w >> 13 & 7; c != 0 {
			if c != 1 || w>>11&1 != 0 {
				return fmt.Errorf("%#x: addi condition in %#08x unsupported", m.PC, w)
			}
			cond := uint32(v) == 0 // the 32-bit "=" condition
			if w>>12&1 != 0 {
				cond = !cond
			}
			if cond && op == 0x2c {
				return fmt.Errorf("%#x: addi,tc %#08x: %w", m.PC, w, ErrTrap)
			}
			if cond {
				m.nullifyNext = true
			}
		}
		m.set(r, v)
	case 0x35: // depw / depwi[,z] val,pos,len,t (fixed position; PA 1.1 and 32-bit code)
		if w>>11&1 == 0 || w>>13&7 != 0 {
			return fmt.Errorf("%#x: variable or conditional deposit %#08x unsupported", m.PC, w)
		}
		cpos, length := int(w>>5&31), 32-int(w&31)
		val := m.GR[r]
		if w>>12&1 != 0 { // depwi: a 5-bit immediate
			val = uint64(lowSign(uint32(r), 5))
		}
		mask := (uint64(1)<<length - 1) << cpos & 0xffffffff
		v := val << cpos & mask
		if w>>10&1 != 0 { // not ,z: the other bits stay
			v |= m.GR[b] &^ mask & 0xffffffff
		}
		m.set(b, v)
	case 0x38, 0x39: // be / be,l wd(sr,b): an external branch (link in r31)
		w1, w2 := uint64(w>>16&31), uint64(w>>2&0x7ff)
		d := signExt(uint64(w&1)<<16|w1<<11|(w2&1)<<10|w2>>1, 17) * 4
		next = (m.GR[b] + uint64(d)) &^ 3
		if op == 0x39 {
			m.set(31, (m.PC+8)|3)
			m.CallStack = append(m.CallStack, m.PC+8)
		} else if k := len(m.CallStack); k > 0 && m.CallStack[k-1] == next {
			m.CallStack = m.CallStack[:k-1]
		}
		if w>>1&1 != 0 {
			m.nullifyNext = true
		}
	case 0x20, 0x22, 0x27, 0x2f, 0x21, 0x23, 0x3b: // cmpb / cmpib
		var x, y uint64
		wide := op == 0x27 || op == 0x2f || op == 0x3b
		if op == 0x21 || op == 0x23 || op == 0x3b {
			x, y = uint64(lowSign(uint32(r), 5)), m.GR[b]
		} else {
			x, y = m.GR[r], m.GR[b]
		}
		c := w >> 13 & 7
		negate := op == 0x22 || op == 0x23 || op == 0x2f
		if op == 0x3b {
			return fmt.Errorf("%#x: cmpib,* %#08x unsupported", m.PC, w)
		}
		if !wide {
			x, y = uint64(int64(int32(x))), uint64(int64(int32(y)))
		}
		var cond bool
		switch c {
		case 0:
			cond = false
		case 1:
			cond = x == y
		case 2:
			cond = int64(x) < int64(y)
		case 3:
			cond = int64(x) <= int64(y)
		case 4:
			cond = x < y
		case 5:
			cond = x <= y
		default:
			return fmt.Errorf("%#x: compare condition %d unsupported", m.PC, c)
		}
		if negate {
			cond = !cond
		}
		w1 := w >> 2 & 0x7ff
		disp := signExt(uint64(w&1)<<11|uint64(w1&1)<<10|uint64(w1>>1), 12) * 4
		target := m.PC + 8 + uint64(disp)
		n := w>>1&1 != 0
		if cond {
			next = target
		}
		if n && ((cond && disp >= 0) || (!cond && disp < 0)) {
			m.nullifyNext = true
		}
	case 0x3a: // b,l / bve / bv
		ext := w >> 13 & 7
		n := w>>1&1 != 0
		switch ext {
		case 0, 5: // b,l target,t (17-bit) / b,l target,%rp (22-bit)
			w1, w2 := uint64(w>>16&31), uint64(w>>2&0x7ff)
			v := uint64(w&1)<<16 | w1<<11 | (w2&1)<<10 | w2>>1
			bits := uint(17)
			link := b
			if ext == 5 {
				v = uint64(w&1)<<21 | uint64(b)<<16 | w1<<11 | (w2&1)<<10 | w2>>1
				bits, link = 22, 2
			}
			next = m.PC + 8 + uint64(signExt(v, bits)*4)
			if link != 0 {
				m.set(link, (m.PC+8)|3) // the link carries the user privilege level
				m.CallStack = append(m.CallStack, m.PC+8)
			}
		case 6: // bv x(b) / bve (b)
			if w>>12&1 == 0 && r != 0 {
				return fmt.Errorf("%#x: unsupported branch %#08x", m.PC, w)
			}
			next = m.GR[b] &^ 3
			if k := len(m.CallStack); k > 0 && m.CallStack[k-1] == next {
				m.CallStack = m.CallStack[:k-1]
			}
		case 7: // bve,l (b),%r2
			if w>>12&1 == 0 {
				return fmt.Errorf("%#x: unsupported branch %#08x", m.PC, w)
			}
			next = m.GR[b] &^ 3
			m.set(2, (m.PC+8)|3)
			m.CallStack = append(m.CallStack, m.PC+8)
		default:
			return fmt.Errorf("%#x: unsupported branch %#08x", m.PC, w)
		}
		if n {
			m.nullifyNext = true
		}
	case 0x00:
		return fmt.Errorf("%#x: break instruction %#08x", m.PC, w)
	default:
		return fmt.Errorf("%#x: unsupported instruction %#08x (opcode %#x)", m.PC, w, op)
	}
	m.PC, m.NPC = m.NPC, next
	return nil
}

// im21 decodes ldil/addil's 21-bit immediate (assemble_21), shifted into
// place and sign-extended to 64 bits.
func im21(w uint32) int64 {
	x := w & 0x1fffff
	v := (x&1)<<20 | (x>>1&0x7ff)<<9 | (x>>14&3)<<7 | (x>>16&0x1f)<<2 | (x >> 12 & 3)
	return signExt(uint64(v)<<11, 32)
}

// Nullified reports whether the instruction at the front of the queue
// (PC) will be nullified: the state an interruption records as the PSW N
// bit.
func (m *Machine) Nullified() bool { return m.nullifyNext }

// compareCond evaluates a compare condition c (never, =, <, <=, <<, <<=)
// on x and y; the overflow and odd conditions are not implemented.
func compareCond(c uint32, x, y uint64) (bool, error) {
	switch c {
	case 0:
		return false, nil
	case 1:
		return x == y, nil
	case 2:
		return int64(x) < int64(y), nil
	case 3:
		return int64(x) <= int64(y), nil
	case 4:
		return x < y, nil
	case 5:
		return x <= y, nil
	}
	return false, fmt.Errorf("compare condition %d unsupported", c)
}
