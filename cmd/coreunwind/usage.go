package main

import (
	"fmt"
	"io"
)

const usageText = `Usage:
  coreunwind [flags] CORE [EXECUTABLE]
  coreunwind --format pprof -o FILE CORE... [EXECUTABLE]...
  coreunwind triage [flags] PATH...
  coreunwind triage eval --labels FILE [flags] PATH...
  coreunwind tables [--format text|json] [--section NAME] FILE
  coreunwind help

CORE and EXECUTABLE may come in either order (gdb's EXECUTABLE CORE too).

Prints, for every thread of CORE (the crashed thread first), the frames
that led to where it was when the process died: program counter, function,
source file and line, inlined calls; with a header giving the executable,
pid, command line and the signal with its code and faulting address.

Flags (before or after the arguments):
  --format text|json|pprof  output format (default text); pprof takes several
                         cores (and executables, told apart by content, each core
                         paired with its executable by build ID) into one
                         profile: one sample per thread, labels tid, thread,
                         crashed, signal, core; it needs -o FILE on a terminal
  -o FILE                write the report to FILE instead of standard output
  --style gdb|hpux       text style: gdb's backtrace (default), or the HP unwind
                         library's U_STACK_TRACE ("( 0) 0x000031f4 foo + 0x14 [./a.out]")
  --threads all|crashed  which threads to print (default all)
  --max-frames N         frames per thread before stopping (default: the whole
                         stack, up to 1,048,576 frames)
  --no-fold              text: print every frame of deep recursion (by default a
                         cycle repeated 3+ times prints once, then "[previous N
                         frames repeated M more times]")
  --no-group             text: print every thread (by default threads with the same
                         stack print once, under "N threads (ids) with this stack:")
  --maps                 print the memory map after the header (text; JSON always has it)
  --unwind-only          no names, lines or inlines: modules and offsets only (fastest)
  --sysroot DIR          look for the core's files under DIR (a core from another machine)
  --search-path DIR      also look for files by name in DIR (repeatable)
  --debug-dir DIR        also look for separate debug files under DIR (repeatable;
                         searched before /usr/lib/debug)
  --no-default-debug-dirs  do not look for separate debug files under /usr/lib/debug
  --perf-map FILE        names for JIT code (perf-PID.map; one beside the core is used anyway)
  --debuginfod, --no-debuginfod  fetch missing executables, libraries and debug files
                         by build ID from the servers in DEBUGINFOD_URLS (on when it is set)
  --cache-dir DIR        symbol cache directory (default $XDG_CACHE_HOME/coreunwind,
                         else ~/.cache/coreunwind)
  --no-cache             do not read or write the symbol cache (also COREUNWIND_NO_CACHE=1)
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
  --sysroot, --search-path, --debug-dir, --no-default-debug-dirs, --debuginfod,
  --no-debuginfod, --cache-dir, --no-cache  as above (one download per build ID
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

Examples:
  coreunwind core.1234 ./server
  coreunwind --format json -o report.json core.1234 ./server
  coreunwind core --sysroot /srv/sysroots/prod --debug-dir /srv/debug
  coreunwind --threads crashed --max-frames 64 core
  coreunwind tables --format json /usr/lib/x86_64-linux-gnu/libc.so.6
  coreunwind --format pprof -o threads.pb.gz core.1 core.2 ./server
  coreunwind triage -j 8 --binaries ./build /var/lib/systemd/coredump crashes.tar.zst

Exit codes: 0 report written; 1 usage error; 2 the core could not be read;
3 partial result (a thread stopped early, no thread could be read, or the
core is damaged); 4 output error; 6 a file changed during the analysis;
7 out of memory (GOMEMLIMIT, else 3/4 of the machine's memory).

Documentation: README.md and docs/ in the source tree (every flag:
docs/flags.md).
`

func printUsage(w io.Writer) { fmt.Fprint(w, usageText) }
