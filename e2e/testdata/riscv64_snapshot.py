# riscv64_snapshot.py: sourced by gdb-multiarch attached to qemu-riscv64's
# gdbstub (e2e/riscv64_test.go). qemu 7.2 writes no riscv64 core and gdb's
# gcore over the stub is unusable, so snapshot(path, ranges) saves what a
# core needs as JSON: every thread's general registers in the order of the
# kernel's struct user_regs_struct (pc, then x1..x31), the readable pages
# of the given address ranges and of each thread's stack from its sp up
# (at most 1 MiB), and gdb's "info auxv". The ranges are the loaded
# sections gdb lists in "info files" (the program's and, for a dynamic
# one, every shared object's), whose text the test also uses to find the
# objects and their load addresses. The test writes the ELF core.
#
# snapshot(path, qemu_pid) also saves every writable mapping of the
# guest: a Go program's heap, where its goroutines and their stacks are.
# The stub does not list the guest's mappings (no "info proc mappings"
# through qemu-user's stub), so they are qemu's own, from
# /proc/QEMU_PID/maps: on a 64-bit host qemu-user maps the guest 1:1
# (guest_base 0, no -B), and the stub reads only what the guest has
# mapped, so qemu's own mappings fail to read and are left out. Runs of
# zero pages are saved as their length only.
import gdb
import json
import re

REGS = (["pc", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "fp", "s1"]
        + ["a%d" % i for i in range(8)]
        + ["s%d" % i for i in range(2, 12)]
        + ["t3", "t4", "t5", "t6"])
PAGE = 4096
STACK = 1 << 20


SECTION = re.compile(r"^\s*0x([0-9a-f]+) - 0x([0-9a-f]+) is ")


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


def snapshot(path, qemu_pid=None):
    inf = gdb.selected_inferior()
    cur = gdb.selected_thread()
    threads = []
    for th in sorted(inf.threads(), key=lambda t: t.num):
        th.switch()
        f = gdb.newest_frame()
        regs = [int(f.read_register(n)) & (2**64 - 1) for n in REGS]
        threads.append({"lwp": th.ptid[1], "regs": regs})
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
    wanted += [(t["regs"][2], t["regs"][2] + STACK) for t in threads]
    wanted += [(t["regs"][i], t["regs"][i] + 1) for t in threads for i in (0, 1)]
    if qemu_pid is not None:
        wanted += writable_mappings(qemu_pid)
    for start, end in wanted:
        read_pages(inf, pages, start, end)
    # Runs of pages: [addr, data] or, for zero pages, [addr, length].
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
