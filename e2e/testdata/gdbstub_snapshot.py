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
# flush_windows() does first what a sparc64 kernel does before it writes
# a core: every thread's register windows still held by the CPU are
# spilled into their save areas (at each window's %sp + 2047), which
# qemu leaves in registers and gdb then reads stale. The stub shows one
# window at a time; writing cwp (the low byte of gdb's "state") selects
# another: the caller's is cwp - 1. Windows are taken while each one's
# %sp lies above the previous one's (a window whose frame returned, or
# that was already spilled and reused, has a %sp below the live ones).
import gdb
import json
import re

PAGE = 4096
STACK = 1 << 20


SECTION = re.compile(r"^\s*0x([0-9a-f]+) - 0x([0-9a-f]+) is ")


def read_regs(names):
    f = gdb.newest_frame()
    return [int(f.read_register(n)) & (2**64 - 1) for n in names]


SPARC_WINDOW = ["l%d" % i for i in range(8)] + ["i%d" % i for i in range(6)] + ["fp", "i7"]
SPARC_NWINDOWS = 8
SPARC_BIAS = 2047


def flush_windows():
    inf = gdb.selected_inferior()
    cur = gdb.selected_thread()
    for th in inf.threads():
        th.switch()
        state = read_regs(["state"])[0]
        cwp = state & 0xff
        prev = None
        for k in range(SPARC_NWINDOWS - 1):
            gdb.execute("set $state = %d" % ((state & ~0xff) | ((cwp - k) % SPARC_NWINDOWS)))
            gdb.execute("maint flush register-cache")
            sp = read_regs(["sp"])[0]
            if sp & 1 == 0 or (prev is not None and sp <= prev):
                break
            prev = sp
            words = read_regs(SPARC_WINDOW)
            inf.write_memory(sp + SPARC_BIAS, b"".join(w.to_bytes(8, "big") for w in words))
            if words[14] == 0:  # %fp: the outermost frame
                break
        gdb.execute("set $state = %d" % state)
        gdb.execute("maint flush register-cache")
    cur.switch()


def snapshot(path, names, sp, code):
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
    for start, end in wanted:
        a = start & ~(PAGE - 1)
        while a < end:
            if a not in pages:
                try:
                    pages[a] = inf.read_memory(a, PAGE).tobytes()
                except gdb.MemoryError:
                    break
            a += PAGE
    mem = []
    for a in sorted(pages):
        if mem and mem[-1][0] + len(mem[-1][1]) == a:
            mem[-1][1] += pages[a]
        else:
            mem.append([a, bytearray(pages[a])])
    out = {
        "current": cur.ptid[1],
        "threads": threads,
        "auxv": gdb.execute("info auxv", to_string=True),
        "files": files,
        "mem": [{"addr": a, "hex": bytes(b).hex()} for a, b in mem],
    }
    with open(path, "w") as f:
        json.dump(out, f)
