# gdbstub_snapshot.py: sourced by gdb-multiarch attached to the gdbstub
# of a qemu-user that writes no core (qemu 7.2: riscv64, sparc64;
# e2e/gdbstub_test.go); gdb's gcore over the stub is unusable. So
# snapshot(path, regs, sp, code) saves what a core needs as JSON: every
# thread's registers named in regs (in the order of the kernel's pr_reg:
# riscv64's struct user_regs_struct, sparc64's %g, %o, %l, %i, tstate,
# tpc, tnpc, y), the readable pages of the loaded sections gdb lists in
# "info files" (the program's and, for a dynamic one, every shared
# object's, whose text the test also uses to find the objects and their
# load addresses), of each thread's stack from regs[sp] up (at most 1
# MiB), and of the registers at the indexes in code (a pc, a return
# address: a signal trampoline's page is in no object), and gdb's "info
# auxv". The test writes the ELF core.
#
# Given qemu's pid, snapshot() also saves every writable mapping of the
# guest: a Go program's heap, where its goroutines and their stacks are.
# The stub does not list the guest's mappings (no "info proc mappings"
# through qemu-user's stub), so they are qemu's own, from
# /proc/QEMU_PID/maps: on a 64-bit host qemu-user maps the guest 1:1
# (guest_base 0, no -B), and the stub reads only what the guest has
# mapped, so qemu's own mappings fail to read and are left out. Runs of
# zero pages are saved as their length only.
#
# flush_windows() does first what a sparc64 kernel does before it writes
# a core: every thread's register windows still held by the CPU are
# spilled into their save areas (at each window's %sp + 2047), which
# qemu leaves in registers and gdb then reads stale. The stub shows one
# window at a time; writing cwp (the low byte of gdb's "state") selects
# another: the caller's is cwp - 1. A window's %o registers are the
# newer window's %i, always live; its own %l and %i are stale when it
# was spilled and its registers reused by a deeper frame, called while
# the window's frame was alive: that frame's %fp (its caller's %sp) is
# then at or below the window's %sp, where a live window's %fp is above
# it (or 0, the outermost). Windows are taken up to the first stale one
# (qemu spilled it and the older ones).
import gdb
import json
import re

PAGE = 4096
STACK = 1 << 20


SECTION = re.compile(r"^\s*0x([0-9a-f]+) - 0x([0-9a-f]+) is ")


def read_regs(names):
    f = gdb.newest_frame()
    return [int(f.read_register(n)) & (2**64 - 1) for n in names]


SPARC_NWINDOWS = 8
SPARC_BIAS = 2047
# qemu's sparc64 stub: its "g" reply is %g0-%i7 (8 bytes each), %f0-%f31
# (4), %f32-%f62 (8), pc, npc, state...; "G" writes them back (qemu 7.2
# has no "p" or "P").
SPARC_L0, SPARC_SP = 16, 14
SPARC_STATE_AT = 32 * 8 + 32 * 4 + 16 * 8 + 2 * 8


def stub(packet):
    """Sends packet to the stub as it is; returns the reply."""
    out = gdb.execute("maint packet " + packet, to_string=True)
    m = re.search(r'received: "(.*)"', out)
    if not m:
        raise gdb.GdbError("no reply to %s: %s" % (packet, out))
    return m.group(1)


def stub_regs():
    """The stub's registers of its current thread, as bytes."""
    return bytes.fromhex(stub("g"))


def stub_word(regs, at):
    return int.from_bytes(regs[at:at + 8], "big")


def select_window(regs, state):
    """Writes state (its cwp selecting a window) with the registers regs
    read last: qemu writes the window registers of a "G" packet into the
    window that is current before the state, so they must be its own.
    Returns the registers of the window selected."""
    put = regs[:SPARC_STATE_AT] + state.to_bytes(8, "big") + regs[SPARC_STATE_AT + 8:]
    if stub("G" + put.hex()) != "OK":
        raise gdb.GdbError("the stub did not take the registers")
    return stub_regs()


def flush_windows():
    # Through the stub's own packets (Hg, g, G): writing cwp through gdb
    # makes it unwind every time, for minutes on a dynamic program. The
    # stub's thread for register packets ends where gdb believes it is:
    # the current thread, whose registers gdb reads first.
    inf = gdb.selected_inferior()
    cur = gdb.selected_thread()
    gdb.execute("maint flush register-cache")
    read_regs(["pc"])
    for th in inf.threads():
        stub("Hgp%x.%x" % (th.ptid[0], th.ptid[1]))
        regs = stub_regs()
        state = stub_word(regs, SPARC_STATE_AT)
        cwp = state & 0xff
        prev = None
        for k in range(SPARC_NWINDOWS - 1):
            if k > 0:
                regs = select_window(regs, (state & ~0xff) | ((cwp - k) % SPARC_NWINDOWS))
            sp = stub_word(regs, SPARC_SP * 8)
            if sp & 1 == 0 or (prev is not None and sp <= prev):
                break
            prev = sp
            words = [stub_word(regs, (SPARC_L0 + i) * 8) for i in range(16)]
            if words[14] != 0 and words[14] <= sp:
                break  # a stale window (see above)
            inf.write_memory(sp + SPARC_BIAS, b"".join(w.to_bytes(8, "big") for w in words))
            if words[14] == 0:  # %fp: the outermost frame
                break
        select_window(regs, state)
    stub("Hgp%x.%x" % (cur.ptid[0], cur.ptid[1]))
    gdb.execute("maint flush register-cache")


CHUNK = 1 << 16


def writable_mappings(pid):
    out = []
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            parts = line.split()
            if parts[1].startswith("rw"):
                lo, hi = [int(x, 16) for x in parts[0].split("-")]
                out.append((lo, hi))
    return out


def read_pages(inf, pages, start, end):
    """Reads [start, end) page-aligned into pages, a chunk at a time,
    page by page where a chunk fails; stops at the first unreadable
    page."""
    a = start & ~(PAGE - 1)
    while a < end:
        n = min(CHUNK, (end - a + PAGE - 1) & ~(PAGE - 1))
        try:
            b = inf.read_memory(a, n).tobytes()
        except gdb.MemoryError:
            try:
                b = inf.read_memory(a, PAGE).tobytes()
            except gdb.MemoryError:
                return
            n = PAGE
        for off in range(0, n, PAGE):
            pages.setdefault(a + off, b[off:off + PAGE])
        a += n


def snapshot(path, names, sp, code, qemu_pid=None):
    inf = gdb.selected_inferior()
    cur = gdb.selected_thread()
    threads = []
    for th in sorted(inf.threads(), key=lambda t: t.num):
        th.switch()
        threads.append({"lwp": th.ptid[1], "regs": read_regs(names)})
    cur.switch()
    pages = {}
    files = gdb.execute("info files", to_string=True)
    wanted = []
    for line in files.splitlines():
        m = SECTION.match(line)
        if m:
            wanted.append((int(m.group(1), 16), int(m.group(2), 16)))
    # Each stack from its sp; the pages of every pc and ra (a signal
    # trampoline's page is in no object).
    wanted += [(t["regs"][sp], t["regs"][sp] + STACK) for t in threads]
    wanted += [(t["regs"][i], t["regs"][i] + 1) for t in threads for i in code]
    if qemu_pid is not None:
        wanted += writable_mappings(qemu_pid)
    for start, end in wanted:
        read_pages(inf, pages, start, end)
    # Runs of pages: [addr, data, length, zero]; zero pages by length.
    zero = bytes(PAGE)
    mem = []
    for a in sorted(pages):
        z = pages[a] == zero
        if mem and mem[-1][0] + mem[-1][2] == a and mem[-1][3] == z:
            if not z:
                mem[-1][1] += pages[a]
            mem[-1][2] += PAGE
        else:
            mem.append([a, bytearray() if z else bytearray(pages[a]), PAGE, z])
    out = {
        "current": cur.ptid[1],
        "threads": threads,
        "auxv": gdb.execute("info auxv", to_string=True),
        "files": files,
        "mem": [{"addr": a, "zeros": n} if z else {"addr": a, "hex": bytes(b).hex()} for a, b, n, z in mem],
    }
    with open(path, "w") as f:
        json.dump(out, f)
