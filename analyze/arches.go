package analyze

// Every architecture's unwinder, registered with package unwind by
// importing it: a program that imports analyze reads cores of all of
// them without blank imports of its own.
import (
	_ "github.com/coreunwind/coreunwind/aarch64"
	_ "github.com/coreunwind/coreunwind/arm"
	_ "github.com/coreunwind/coreunwind/i386"
	_ "github.com/coreunwind/coreunwind/ia64"
	_ "github.com/coreunwind/coreunwind/loong64"
	_ "github.com/coreunwind/coreunwind/mips"
	_ "github.com/coreunwind/coreunwind/pa64"
	_ "github.com/coreunwind/coreunwind/ppc64"
	_ "github.com/coreunwind/coreunwind/riscv64"
	_ "github.com/coreunwind/coreunwind/s390x"
	_ "github.com/coreunwind/coreunwind/sh"
	_ "github.com/coreunwind/coreunwind/sparc64"
	_ "github.com/coreunwind/coreunwind/x86_64"
)
