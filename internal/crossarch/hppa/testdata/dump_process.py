"""gdb command `coreunwind-dump DIR`, for coreunwind's PA-RISC tests.

Run inside gdb-multiarch attached to `qemu-hppa -g PORT` once the program
stopped on its fatal signal. It records what a Linux kernel would put in a
core, and the Go test (internal/crossarch/hppa, core.go) writes the ELF
core from it:

  DIR/facts.json   signal, per-thread registers in the kernel's
                   elf_gregset_t slot order (faulting thread first) and
                   floating-point registers as elf_fpregset_t (fr0..fr31,
                   64 bits each), /proc/self/maps, auxv and cmdline of the
                   guest, and the floating-point registers recorded by
                   `coreunwind-record-entry` breakpoints
  DIR/mem-ADDR     memory runs (hex start address in the name)

Why not gdb's own gcore: bfd has no hppa prstatus writer and falls back to
the host's layout. Why inferior calls: qemu-user emulates the guest's
/proc/self files, and only the guest can read them.
"""
import json
import os
import re

import gdb

PAGE = 0x1000
SCRATCH = 0x40000
MAP_PRIVATE_ANON = 0x12  # hppa: MAP_PRIVATE | MAP_ANONYMOUS
STACK_SLACK = 0x10000    # stacks grow up: keep this much above each sp

# Kernel elf_gregset_t slot -> gdb register name (None: not in gdb).
GREG_SLOTS = (
    ["flags", "r1", "rp"] + ["r%d" % i for i in range(3, 27)]
    + ["dp", "ret0", "ret1", "sp", "r31"]
    + ["sr0", "sr1", "sr2", "sr3", "sr4", "sr5", "sr6", "sr7"]
    + ["pcoqh", "pcoqt", "pcsqh", "pcsqt"]
    + ["sar", "iir", "isr", "ior", "ipsw", "cr0"]
    + ["cr24", "cr25", "cr26", "mpsfu_high", "mpsfu_low", "mpsfu_ovflo", "pad", None]
    + ["cr8", "cr9", "cr12", "cr13", "ccr", "eiem"]
)
RAWREG = re.compile(r"^\s*(\S+)\s+\d+\s+\d+\s+\d+\s+\d+\s+\S+\s+(0x[0-9a-f]+)")


def thread_regs(thread):
    """Frame 0's registers as raw bits, in pr_reg slot order."""
    thread.switch()
    raw = {}
    for line in gdb.execute("maint print raw-registers", to_string=True).splitlines():
        m = RAWREG.match(line)
        if m:
            raw[m.group(1)] = int(m.group(2), 16)
    return [0 if n is None else raw.get(n, 0) for n in GREG_SLOTS] + [0] * 16


def thread_fpregs(thread):
    """fr0..fr31 as 64-bit words, as the kernel's elf_fpregset_t holds
    them: gdb shows 32-bit halves (fpsr, fpe1..fpe7 for fr0..fr3; frN and
    frNR from fr4 up)."""
    thread.switch()
    return fpregs_of(raw_registers())


def raw_registers():
    raw = {}
    for line in gdb.execute("maint print raw-registers", to_string=True).splitlines():
        m = RAWREG.match(line)
        if m:
            raw[m.group(1)] = int(m.group(2), 16)
    return raw


def fpregs_of(raw):
    halves = ["fpsr"] + ["fpe%d" % i for i in range(1, 8)]
    for i in range(4, 32):
        halves += ["fr%d" % i, "fr%dR" % i]
    return [(raw.get(halves[2 * i], 0) << 32) | raw.get(halves[2 * i + 1], 0) for i in range(32)]


# Function name -> fr0..fr31 at its entry: the caller's values, which a
# call must preserve for fr12..fr21. Recorded without unwinding.
ENTRY_FREGS = {}


class EntryRecorder(gdb.Breakpoint):
    def __init__(self, func):
        super().__init__("*" + func, internal=True)
        self.func = func

    def stop(self):
        ENTRY_FREGS[self.func] = fpregs_of(raw_registers())
        return False


class RecordEntry(gdb.Command):
    """coreunwind-record-entry FUNC...: record the floating-point registers
    at each FUNC's first instruction (the last call made wins)."""

    def __init__(self):
        super().__init__("coreunwind-record-entry", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        for func in arg.split():
            EntryRecorder(func)


RecordEntry()


def call(expr):
    return int(gdb.parse_and_eval(expr)) & 0xFFFFFFFF


def guest_file(path, buf):
    inf = gdb.selected_inferior()
    inf.write_memory(buf, path.encode() + b"\0")
    fd = call("(int)open((char*)0x%x, 0)" % buf)
    if fd >= 0x80000000:
        raise gdb.GdbError("guest open(%s) failed" % path)
    data = b""
    while True:
        n = call("(int)read(%d, (char*)0x%x, %d)" % (fd, buf + PAGE, SCRATCH - PAGE))
        if n == 0 or n >= 0x80000000:
            break
        data += bytes(inf.read_memory(buf + PAGE, n))
    call("(int)close(%d)" % fd)
    return data


def readable_runs(start, end):
    """[start, end) as runs of readable bytes, page by page."""
    inf = gdb.selected_inferior()
    runs, cur, at = [], None, start
    while at < end:
        try:
            b = bytes(inf.read_memory(at, PAGE))
            if cur is None:
                cur = [at, bytearray()]
            cur[1] += b
        except gdb.MemoryError:
            if cur is not None:
                runs.append(cur)
                cur = None
        at += PAGE
    if cur is not None:
        runs.append(cur)
    return runs


def without_range(maps, lo, hi):
    """The maps lines with [lo, hi) cut out: the dump's scratch buffer may
    have merged with a neighbouring anonymous mapping (a thread stack)."""
    out = []
    for line in maps.splitlines():
        f = re.match(r"([0-9a-f]+)-([0-9a-f]+)( .*)$", line)
        if not f:
            continue
        s, e, rest = int(f.group(1), 16), int(f.group(2), 16), f.group(3)
        if e <= lo or s >= hi:
            out.append(line)
            continue
        if s < lo:
            out.append("%08x-%08x%s" % (s, lo, rest))
        if e > hi:
            out.append("%08x-%08x%s" % (hi, e, rest))
    return out


BORROW = 0x8000  # stack bytes lent to the inferior calls after an overflow


def readable(addr):
    try:
        gdb.selected_inferior().read_memory(addr, 1)
        return True
    except gdb.MemoryError:
        return False


def guest_files():
    """/proc/self/maps (without the scratch buffer), auxv and cmdline,
    read by the guest itself."""
    buf = call("(long)mmap(0, %d, 3, %d, -1, 0)" % (SCRATCH, MAP_PRIVATE_ANON))
    if buf >= 0xFFFFF000:
        raise gdb.GdbError("inferior mmap failed")
    maps = guest_file("/proc/self/maps", buf).decode(errors="replace")
    auxv = guest_file("/proc/self/auxv", buf)
    cmdline = guest_file("/proc/self/cmdline", buf)
    call("(int)munmap((char*)0x%x, %d)" % (buf, SCRATCH))
    return "\n".join(without_range(maps, buf, buf + SCRATCH)), auxv, cmdline


class Dump(gdb.Command):
    """coreunwind-dump DIR"""

    def __init__(self):
        super().__init__("coreunwind-dump", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        out = arg.strip()
        os.makedirs(out, exist_ok=True)
        inf = gdb.selected_inferior()
        cur = gdb.selected_thread()
        m = re.search(r"signal (SIG[A-Z0-9]+)", gdb.execute("info program", to_string=True))
        threads = [cur] + [t for t in sorted(inf.threads(), key=lambda t: t.num) if t != cur]
        regs = [{"tid": t.ptid[1] or t.ptid[0], "gregs": thread_regs(t), "fpregs": thread_fpregs(t)} for t in threads]
        cur.switch()
        gdb.execute("set scheduler-locking on", to_string=True)
        try:
            maps, auxv, cmdline = guest_files()
        except (gdb.MemoryError, gdb.error):
            # A stack overflow leaves no room above sp for the inferior
            # calls' frames (stacks grow up): run them lower down, over
            # older frames, and put those bytes back afterwards.
            sp = int(gdb.parse_and_eval("$sp")) & 0xFFFFFFFF
            top = sp & ~(PAGE - 1)  # sp may be past the stack's end
            for _ in range(64):
                if readable(top - PAGE):
                    break
                top -= PAGE
            low = top - BORROW
            saved = bytes(inf.read_memory(low, BORROW))
            gdb.execute("set $sp = 0x%x" % (low + 0x100), to_string=True)
            try:
                maps, auxv, cmdline = guest_files()
            finally:
                gdb.execute("set $sp = 0x%x" % sp, to_string=True)
                inf.write_memory(low, saved)
        sps = [r["gregs"][30] for r in regs]
        dumped, kept = [], []
        for line in maps.splitlines():
            kept.append(line)
            f = re.match(r"([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) \S+ \d+\s*(.*)$", line)
            if not f:
                continue
            s, e, perm, name = int(f.group(1), 16), int(f.group(2), 16), f.group(3), f.group(5).strip()
            if s == 0 or "r" not in perm:
                continue
            if name.startswith("/") and "w" not in perm:
                e = min(e, s + PAGE)  # file text: the header page only
            for sp in sps:
                if s <= sp < e:
                    e = min(e, (sp + STACK_SLACK) & ~(PAGE - 1))
            for start, data in readable_runs(s, e):
                with open(os.path.join(out, "mem-%x" % start), "wb") as fh:
                    fh.write(data)
                dumped.append(start)
        facts = {"signal": m.group(1) if m else "", "threads": regs, "maps": "\n".join(kept), "auxv": auxv.hex(), "cmdline": cmdline.hex(), "entry_fregs": ENTRY_FREGS}
        with open(os.path.join(out, "facts.json"), "w") as fh:
            json.dump(facts, fh)
        gdb.write("coreunwind-dump: %d threads, %d memory runs\n" % (len(regs), len(dumped)))


Dump()
