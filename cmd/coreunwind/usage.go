package main

import (
	"fmt"
	"io"
)

const usageText = `Usage:
  coreunwind [flags] CORE [EXECUTABLE]
  coreunwind tables [--format text|json] FILE

Prints, for every thread of CORE (the crashed thread first), the frames
that led to where it was when the process died: program counter, function,
source file and line, inlined calls; with a header giving the executable,
pid, command line and the signal with its code and faulting address.

Flags (before or after the arguments):
  --format text|json     output format (default text)
  -o FILE                write the report to FILE instead of standard output
  --threads all|crashed  which threads to print (default all)
  --max-frames N         frames per thread before stopping (default 4096)
  --sysroot DIR          look for the core's files under DIR (a core from another machine)
  --search-path DIR      also look for files by name in DIR (repeatable)
  --debug-dir DIR        separate debug files root (repeatable; default /usr/lib/debug)
  --version              print the version and exit
  -h, --help             print this help

Examples:
  coreunwind core.1234 ./server
  coreunwind --format json -o report.json core.1234 ./server
  coreunwind core --sysroot /srv/sysroots/prod --debug-dir /srv/debug
  coreunwind --threads crashed --max-frames 64 core
  coreunwind tables --format json /usr/lib/x86_64-linux-gnu/libc.so.6

Exit codes: 0 report written; 1 usage error; 2 the core could not be read;
3 partial result (a thread stopped early, or no thread could be read);
4 output error.
`

func printUsage(w io.Writer) { fmt.Fprint(w, usageText) }
