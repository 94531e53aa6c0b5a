package minidump

import "encoding/binary"

// builder assembles a minidump for tests: streams are appended after the
// header, the directory last.
type builder struct {
	body []byte // everything after the header
	dir  []Directory
}

const builderBase = headerSize

// rva is where the next bytes go.
func (b *builder) rva() uint32 { return uint32(builderBase + len(b.body)) }

// put appends raw bytes and returns their RVA.
func (b *builder) put(p []byte) uint32 {
	r := b.rva()
	b.body = append(b.body, p...)
	return r
}

// stream appends a stream's bytes and its directory entry.
func (b *builder) stream(t StreamType, p []byte) {
	b.dir = append(b.dir, Directory{Type: t, Size: uint32(len(p)), RVA: b.put(p)})
}

// utf16 appends a MINIDUMP_STRING and returns its RVA.
func (b *builder) utf16(s string) uint32 {
	p := le.AppendUint32(nil, uint32(2*len(s)))
	for _, c := range s {
		p = le.AppendUint16(p, uint16(c))
	}
	return b.put(p)
}

func (b *builder) bytes() []byte {
	h := []byte(Signature)
	h = le.AppendUint32(h, headerVersion)
	h = le.AppendUint32(h, uint32(len(b.dir)))
	h = le.AppendUint32(h, uint32(builderBase+len(b.body)))
	h = append(h, make([]byte, headerSize-len(h))...)
	out := append(h, b.body...)
	for _, e := range b.dir {
		out = le.AppendUint32(out, uint32(e.Type))
		out = le.AppendUint32(out, e.Size)
		out = le.AppendUint32(out, e.RVA)
	}
	return out
}

// amd64Context is a CONTEXT with rip, rsp and rbp set.
func amd64Context(rip, rsp, rbp uint64) []byte {
	c := make([]byte, amd64ContextSize)
	le.PutUint32(c[48:], contextAMD64|0xf)
	le.PutUint64(c[152:], rsp)
	le.PutUint64(c[160:], rbp)
	le.PutUint64(c[248:], rip)
	return c
}

// crafted is a small amd64 Linux minidump: one thread with a 64-byte
// stack, one module with a build ID, an exception, maps and auxv.
func crafted() []byte {
	var b builder
	sys := make([]byte, systemInfoSize)
	le.PutUint16(sys, uint16(CPUAMD64))
	le.PutUint32(sys[20:], uint32(PlatformLinux))
	b.stream(SystemInfoStream, sys)
	stack := b.put(make([]byte, 64))
	ctx := b.put(amd64Context(0x401000, 0x7fff0000, 0x7fff0020))
	th := le.AppendUint32(nil, 1)
	th = le.AppendUint32(th, 42)
	th = append(th, make([]byte, 20)...)
	th = le.AppendUint64(th, 0x7fff0000)
	th = le.AppendUint32(th, 64)
	th = le.AppendUint32(th, stack)
	th = le.AppendUint32(th, uint32(amd64ContextSize))
	th = le.AppendUint32(th, ctx)
	b.stream(ThreadListStream, th)
	mem := le.AppendUint32(nil, 1)
	mem = le.AppendUint64(mem, 0x7fff0000)
	mem = le.AppendUint32(mem, 64)
	mem = le.AppendUint32(mem, stack)
	b.stream(MemoryListStream, mem)
	name := b.utf16("/bin/prog")
	cv := b.put(append(le.AppendUint32(nil, cvSignatureElf), 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
	mod := make([]byte, moduleSize)
	le.PutUint64(mod, 0x400000)
	le.PutUint32(mod[8:], 0x2000)
	le.PutUint32(mod[moduleNameRVAOff:], name)
	le.PutUint32(mod[moduleCodeViewOff:], 24)
	le.PutUint32(mod[moduleCodeViewOff+4:], cv)
	b.stream(ModuleListStream, append(le.AppendUint32(nil, 1), mod...))
	exc := make([]byte, exceptionSize)
	le.PutUint32(exc, 42)
	le.PutUint32(exc[8:], 11)
	le.PutUint32(exc[12:], 1)
	le.PutUint64(exc[24:], 0x10)
	le.PutUint32(exc[160:], uint32(amd64ContextSize))
	le.PutUint32(exc[164:], ctx)
	b.stream(ExceptionStream, exc)
	b.stream(LinuxMaps, []byte("00400000-00402000 r-xp 00000000 08:01 12 /bin/prog\n7fff0000-7fff1000 rw-p 00000000 00:00 0 [stack]\n"))
	var auxv []byte
	for _, v := range []uint64{9, 0x401000, 33, 0x7ff00000, 0, 0} {
		auxv = binary.LittleEndian.AppendUint64(auxv, v)
	}
	b.stream(LinuxAuxv, auxv)
	b.stream(LinuxCmdLine, []byte("prog\x00-x\x00"))
	b.stream(LinuxProcStatus, []byte("Name:\tprog\nTgid:\t42\nPPid:\t1\nUid:\t1000\t1000\t1000\t1000\n"))
	return b.bytes()
}
