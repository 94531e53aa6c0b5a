package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// CrossArch describes one guest architecture that the tests build for
// with Debian's cross compilers and run under qemu-user.
type CrossArch struct {
	Name   string // the report's arch name: "aarch64", "arm", "ppc64le", ...
	Triple string // the GNU triplet: the compiler prefix and the sysroot under /usr
	Qemu   string // the qemu-user binary
}

// Sysroot is the cross C library's root (/usr/<triplet>): what gdb's
// "set sysroot" and coreunwind's --sysroot need for a qemu-user core.
func (a CrossArch) Sysroot() string { return "/usr/" + a.Triple }

// CC is the cross C compiler.
func (a CrossArch) CC() string { return a.Triple + "-gcc" }

// The guest architectures qemu-user writes cores for (qemu 7.2 has no
// core writer for riscv64 or hppa).
var (
	AArch64 = CrossArch{"aarch64", "aarch64-linux-gnu", "qemu-aarch64"}
	ARMHF   = CrossArch{"arm", "arm-linux-gnueabihf", "qemu-arm"}
	PPC64LE = CrossArch{"ppc64le", "powerpc64le-linux-gnu", "qemu-ppc64le"}
	PPC64   = CrossArch{"ppc64", "powerpc64-linux-gnu", "qemu-ppc64"} // big-endian, ELFv1
	PPC     = CrossArch{"ppc", "powerpc-linux-gnu", "qemu-ppc"}       // 32-bit, big-endian
	S390X   = CrossArch{"s390x", "s390x-linux-gnu", "qemu-s390x"}
	// RISCV64's qemu-riscv64 (7.2) writes no core: CrashUnderQemu fails
	// for it. Its tests build and run programs under qemu's gdbstub.
	RISCV64 = CrossArch{"riscv64", "riscv64-linux-gnu", "qemu-riscv64"}
	// MIPS: o32 big- and little-endian, n64 little-endian.
	MIPS     = CrossArch{"mips", "mips-linux-gnu", "qemu-mips"}
	MIPSEL   = CrossArch{"mipsel", "mipsel-linux-gnu", "qemu-mipsel"}
	MIPS64EL = CrossArch{"mips64el", "mips64el-linux-gnuabi64", "qemu-mips64el"}
	// LOONG64 runs Go programs (GOARCH=loong64): Debian 12 has no
	// LoongArch C compiler. qemu-loongarch64 writes their cores.
	LOONG64 = CrossArch{"loongarch64", "loongarch64-linux-gnu", "qemu-loongarch64"}
	// SPARC64's qemu-sparc64 (7.2) writes no core either: its programs
	// are built for their code and run under the gdbstub.
	SPARC64 = CrossArch{"sparc64", "sparc64-linux-gnu", "qemu-sparc64"}
	// SH4 (SuperH, little-endian): Debian 12's sh4 glibc cannot start
	// (gcc 12 miscompiled its loops), so the test programs are linked
	// with -nostdlib against e2e's sh4rt.c; qemu-sh4 writes their cores.
	SH4 = CrossArch{"sh", "sh4-linux-gnu", "qemu-sh4"}
)

// BuildCross compiles the C source text src for arch into dir/name.
func BuildCross(t testing.TB, arch CrossArch, dir, name, src string, flags ...string) string {
	t.Helper()
	srcPath := filepath.Join(dir, name+".c")
	if err := os.WriteFile(srcPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name)
	Build(t, arch.CC(), append(append([]string{"-o", out, srcPath}, flags...), "-lpthread")...)
	return out
}

// CrashUnderQemu runs prog (built for arch) under qemu-user in its
// directory with "ulimit -c unlimited", expects the guest to die by a
// signal, and returns the core qemu wrote for the guest (renamed to
// core.<name>) and what the program printed. qemu-user cores hold
// NT_PRSTATUS per thread, NT_PRPSINFO and NT_AUXV only: no NT_FILE, no
// NT_SIGINFO, and not the first (header) segment of executable ELF
// mappings. The guest's dynamic loader and libraries come from the
// cross sysroot (QEMU_LD_PREFIX).
func CrashUnderQemu(t testing.TB, arch CrossArch, prog string, args ...string) (core string, output []byte) {
	t.Helper()
	return CrashUnderQemuEnv(t, arch, nil, prog, args...)
}

// CrashUnderQemuEnv is CrashUnderQemu with env ("NAME=value") added to
// the environment, which qemu-user passes on to the guest.
func CrashUnderQemuEnv(t testing.TB, arch CrossArch, env []string, prog string, args ...string) (core string, output []byte) {
	t.Helper()
	NeedTool(t, arch.Qemu)
	dir := filepath.Dir(prog)
	// qemu 7.2 also lets the host kernel dump qemu itself as "core" (a
	// large x86-64 core nobody wants): a directory of that name makes
	// that dump fail harmlessly.
	if err := os.MkdirAll(filepath.Join(dir, "core"), 0o755); err != nil {
		t.Fatal(err)
	}
	before, _ := filepath.Glob(filepath.Join(dir, "qemu_*.core"))
	for _, old := range before {
		os.Remove(old)
	}
	// -s 1M: a 1 MiB guest stack keeps the core small (qemu cores are
	// not sparse).
	cmd := exec.Command("sh", append([]string{"-c", `ulimit -c unlimited; exec "$0" "$@"`,
		arch.Qemu, "-s", "1M", "./" + filepath.Base(prog)}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "QEMU_LD_PREFIX="+arch.Sysroot()), env...)
	output, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("%s did not crash under %s; it printed:\n%s", prog, arch.Qemu, output)
	}
	cores, _ := filepath.Glob(filepath.Join(dir, "qemu_*.core"))
	if len(cores) != 1 {
		t.Fatalf("%s crashed under %s (%v) but left %d qemu cores; it printed:\n%s", prog, arch.Qemu, err, len(cores), output)
	}
	core = filepath.Join(dir, "core."+filepath.Base(prog))
	if err := os.Rename(cores[0], core); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(output), "Invalid ELF image") {
		t.Fatalf("%s: %s", arch.Qemu, output)
	}
	return core, output
}
