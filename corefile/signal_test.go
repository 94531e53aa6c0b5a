package corefile

import (
	"debug/elf"
	"testing"
)

func TestSignalNames(t *testing.T) {
	for _, tc := range []struct {
		s          Signal
		name, code string
	}{
		{Signal{Number: 11, Code: 1, Detailed: true}, "SIGSEGV", "SEGV_MAPERR"},
		{Signal{Number: 11, Code: 2, Detailed: true}, "SIGSEGV", "SEGV_ACCERR"},
		{Signal{Number: 11, Code: 0x80, Detailed: true}, "SIGSEGV", "SI_KERNEL"},
		{Signal{Number: 7, Code: 1, Detailed: true}, "SIGBUS", "BUS_ADRALN"},
		{Signal{Number: 4, Code: 2, Detailed: true}, "SIGILL", "ILL_ILLOPN"},
		{Signal{Number: 8, Code: 1, Detailed: true}, "SIGFPE", "FPE_INTDIV"},
		{Signal{Number: 5, Code: 1, Detailed: true}, "SIGTRAP", "TRAP_BRKPT"},
		{Signal{Number: 6, Code: -6, Detailed: true}, "SIGABRT", "SI_TKILL"},
		{Signal{Number: 15, Code: 0, Detailed: true}, "SIGTERM", "SI_USER"},
		{Signal{Number: 10, Code: -1, Detailed: true}, "SIGUSR1", "SI_QUEUE"},
		{Signal{Number: 31, Code: 1, Detailed: true}, "SIGSYS", "SYS_SECCOMP"},
		{Signal{Number: 37, Code: -1, Detailed: true}, "SIG37", "SI_QUEUE"},
		{Signal{Number: 11, Code: 99, Detailed: true}, "SIGSEGV", "99"},
		{Signal{Number: 11, Code: 1}, "SIGSEGV", ""},
		{Signal{Number: 10, Code: 2, Detailed: true, machine: elf.EM_PARISC}, "SIGBUS", "BUS_ADRERR"},
		{Signal{Number: 16, Detailed: true, machine: elf.EM_PARISC}, "SIGUSR1", "SI_USER"},
		{Signal{Number: 11, Code: 4, Detailed: true, machine: elf.EM_IA_64}, "SIGSEGV", "__SEGV_PSTKOVF"},
	} {
		if n, c := tc.s.Name(), tc.s.CodeName(); n != tc.name || c != tc.code {
			t.Errorf("%+v: %s %s, want %s %s", tc.s, n, c, tc.name, tc.code)
		}
	}
}
