package main

import (
	"fmt"
	"io"
)

const usageText = `Usage:
  coreunwind [flags] CORE [EXECUTABLE]
  coreunwind [flags] -p PID
  coreunwind --format pprof -o FILE CORE... [EXECUTABLE]...
  coreunwind triage [flags] PATH...
  coreunwind triage eval --labels FILE [flags] PATH...
  coreunwind tables [--format text|json] [--section NAME] FILE
  coreunwind gcore [-o FILE] PID
  coreunwind help

CORE and EXECUTABLE may come in either order (gdb's EXECUTABLE CORE too).
CORE may also be a crash report that carries a core: a systemd journal file
(every systemd-coredump entry in it), an apport .crash file or an ABRT
problem directory; each crash is reported with the facts it records.

Prints, for every thread of CORE (the crashed thread first), the frames
that led to where it was when the process died: program counter, function,
source file and line, inlined calls; with a header giving the executable,
pid, command line and the signal with its code and faulting address.

Flags (before or after the arguments):
  --format text|json|stackwalk-json|pprof|pprof-goroutines
                         output format (default text); stackwalk-json is
                         rust-minidump's minidump-stackwalk schema; pprof takes several
                         cores (and executables, told apart by content, each core
                         paired with its executable by build ID) into one
                         profile: one sample per thread, labels tid, thread,
                         crashed, signal, core; it needs -o FILE on a terminal;
                         pprof-goroutines: a Go program's goroutine profile, one
                         sample per goroutine, its pprof labels as labels (as
                         runtime/pprof's goroutine profile; go tool pprof reads it)
  -o FILE                write the report to FILE instead of standard output
  --style gdb|hpux       text style: gdb's backtrace (default), or the HP unwind
                         library's U_STACK_TRACE ("( 0) 0x000031f4 foo + 0x14 [./a.out]")
  --threads all|crashed  which threads to print (default all)
  --max-frames N         frames per thread before stopping (default: the whole
                         stack, up to 1,048,576 frames)
  --no-fold              text: print every frame of deep recursion (by default a
                         cycle repeated 3+ times prints once, then "[previous N
                         frames repeated M more times]")
  --no-group             text: print every thread and goroutine (by default threads
                         with the same stack print once, under "N threads (ids)
                         with this stack:", and a Go program's goroutines under
                         "N goroutines (ids) [state]:")
  --python-only          text: only each thread's Python stack, as faulthandler
                         prints it (python -X faulthandler), for a CPython process
  --no-python            leave a CPython process's Python frames out: the
                         _PyEval_EvalFrameDefault frames stay as they are
  --maps                 print the memory map after the header (text; JSON always has it)
  --unwind-only          no names, lines or inlines: modules and offsets only (fastest)
  --sysroot DIR          look for the core's files under DIR (a core from another machine)
  --search-path DIR      also look for files by name in DIR (repeatable)
  --debug-dir DIR        also look for separate debug files under DIR (repeatable;
                         searched before /usr/lib/debug)
  --no-default-debug-dirs  do not look for separate debug files under /usr/lib/debug
  --match MATCH          in a journal file, .crash file or ABRT directory, report
                         only the crashes MATCH chooses: a PID, an executable's
                         path, a command name, a journal cursor, or FIELD=VALUE
                         (repeatable: every MATCH must hold), as coredumpctl's matches do
  --symbols DIR          Breakpad symbol store (DIR/NAME/ID/NAME.sym, as dump_syms
                         and symupload lay it out): function names, lines and
                         CFI for modules whose binary is not found (repeatable)
  --perf-map FILE        names for JIT code (perf-PID.map; one beside the core is used anyway)
  --debuginfod, --no-debuginfod  fetch missing executables, libraries and debug files
                         by build ID from the servers in DEBUGINFOD_URLS (on when it is set)
  --cache-dir DIR        symbol cache directory (default $XDG_CACHE_HOME/coreunwind,
                         else ~/.cache/coreunwind)
  --no-cache             do not read or write the symbol cache (also COREUNWIND_NO_CACHE=1)
  -p, --pid PID          report on a running process instead of a core: every
                         thread is stopped (ptrace) while its registers and the top
                         of its stack are copied, then let go; the rest is read
                         from the running process and its files (/proc/PID/root)
  --dump FILE            with -p: also write the process as a core to FILE (while
                         it is stopped; coredump_filter says which memory)
  --samples N            with -p and --format pprof: N snapshots, one profile
  --interval D           with --samples: time between snapshots (default 100ms)
  --version              print the version and exit
  -h, --help             print this help

Triage (many cores grouped by crash signature):
  PATH is a directory (searched recursively), a core, or a tar archive
  (.tar, .tar.gz/.zst/.xz/.lz4); cores may be zstd/xz/gzip/lz4-compressed
  and named the systemd-coredump way.
  --format text|json|jsonl|pprof  buckets table, JSON (coreunwind.triage/v1),
                         one report per core with its bucket id, or one
                         profile of the crashing threads labelled by bucket
  -o FILE                write to FILE
  -j N                   cores analyzed at once (default all CPUs)
  --frames N             meaningful frames per signature (default 1: the crash site)
  --skip REGEX           also skip frames matching REGEX (repeatable)
  --skip-frames FILE     skip list from FILE (replaces the default; @default includes it)
  --print-skip           print the skip list in effect
  --rules FILE           signature rules: frame rules (skip, prefix, keep, +app,
                         -app) and fingerprints (docs/triage.md)
  --explain CORE         print which frames made CORE's signature and which rules
                         skipped the others (text or json)
  --labels FILE          triage eval: the labelled corpus ("BUG CORE" lines);
                         prints BCubed precision, recall, F1, split bugs, mixed
                         buckets and the similar-bucket links' figures
  --binaries DIR         executables and libraries, matched by build ID (repeatable)
  --max-frames N         frames per thread (default 256)
  --sysroot, --search-path, --debug-dir, --no-default-debug-dirs, --symbols,
  --debuginfod, --no-debuginfod, --cache-dir, --no-cache  as above (one download per build ID
                         for the whole batch)
  --all-threads          unwind every thread, not only the crashing one
  --max-cores-listed N   core names per bucket in JSON (default 100)
  --bucket-partial       let partial cores (truncated inside the crashing thread's
                         stack) form and join buckets; by default they are only listed
  Exit codes: 0 all analyzed; 2 none analyzed; 3 some failed or partial (listed).

Tables (a binary's unwind table, as readelf prints it):
  --format text|json     text (default) or JSON (coreunwind.tables/v1)
  --section NAME         .eh_frame or .debug_frame (default: .eh_frame, else
                         .debug_frame; on 32-bit ARM the .ARM.exidx index)

Gcore (a core of a running process, as gdb's gcore writes one):
  -o FILE                write the core to FILE (default core.PID)

Examples:
  coreunwind core.1234 ./server
  coreunwind --format json -o report.json core.1234 ./server
  coreunwind core --sysroot /srv/sysroots/prod --debug-dir /srv/debug
  coreunwind --threads crashed --max-frames 64 core
  coreunwind --match COREDUMP_UNIT=web.service /var/log/journal/*/system.journal
  coreunwind /var/crash/_usr_bin_prog.1000.crash
  coreunwind tables --format json /usr/lib/x86_64-linux-gnu/libc.so.6
  coreunwind --format pprof -o threads.pb.gz core.1 core.2 ./server
  coreunwind -p 1234
  coreunwind -p 1234 --format pprof -o profile.pb.gz --samples 100 --interval 10ms
  coreunwind triage -j 8 --binaries ./build /var/lib/systemd/coredump crashes.tar.zst

Exit codes: 0 report written; 1 usage error; 2 the core could not be read;
3 partial result (a thread stopped early, no thread could be read, or the
core is damaged); 4 output error; 6 a file changed during the analysis;
7 out of memory (GOMEMLIMIT, else 3/4 of the machine's memory); 8 the process
(-p, gcore) could not be attached; 130 interrupted (the process was let go).

Documentation: README.md and docs/ in the source tree (every flag:
docs/flags.md).
`

func printUsage(w io.Writer) { fmt.Fprint(w, usageText) }
