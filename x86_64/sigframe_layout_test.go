package x86_64

import (
	"encoding/binary"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/unwind/unwindtest"
)

// TestSigframeLayoutMatchesGlibcCFI checks the ucontext layouts that
// stepSigreturn reads (for trampolines without CFI) against glibc's own
// CFI for __restore_rt, which describes every saved register as an
// offset from the trampoline's rsp: x86-64's libc and x32's
// (libc6-x32-cross, test.sh installs it), read by readelf.
func TestSigframeLayoutMatchesGlibcCFI(t *testing.T) {
	readelf := testenv.NeedTool(t, "readelf")
	for _, tc := range []struct {
		libc   string
		arch   Arch
		layout sigframeLayout
	}{
		{"/lib/x86_64-linux-gnu/libc.so.6", Arch{}, lp64Sigframe},
		{"/usr/x86_64-linux-gnux32/lib/libc.so.6", Arch{x32: true}, x32Sigframe},
	} {
		t.Run(tc.arch.Name(), func(t *testing.T) {
			if _, err := os.Stat(tc.libc); err != nil {
				testenv.Unavailable(t, tc.libc+" (test.sh installs it): "+err.Error())
			}
			offsets := restoreRTOffsets(t, readelf, tc.libc)
			for i, reg := range sigcontextRegs {
				want := tc.layout.mcontext + uint64(i)*8
				got, ok := offsets[reg]
				if !ok {
					t.Errorf("%s: glibc's CFI saves no %s", tc.libc, RegName(uint64(reg)))
					continue
				}
				if got != want {
					t.Errorf("%s: %s at rsp+%d in glibc's CFI, stepSigreturn reads rsp+%d", tc.libc, RegName(uint64(reg)), got, want)
				}
			}
		})
	}
}

var (
	cieLine  = regexp.MustCompile(`^([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ CIE`)
	augLine  = regexp.MustCompile(`Augmentation:\s+"(\w*)"`)
	fdeLine  = regexp.MustCompile(`FDE cie=([0-9a-f]+) pc=`)
	exprLine = regexp.MustCompile(`DW_CFA_expression: r(\d+) \(\w+\) \(DW_OP_breg7 \(rsp\): (\d+)\)`)
)

// restoreRTOffsets returns, per DWARF register, the rsp offset at which
// libc's CFI for __restore_rt says the register is saved. libc.so.6 is
// stripped of __restore_rt's local symbol; its FDE is the one whose CIE
// has the 'S' (signal frame) augmentation.
func restoreRTOffsets(t *testing.T, readelf, libc string) map[int]uint64 {
	t.Helper()
	// binutils 2.40's readelf exits 1 on Debian 12's libc.so.6 without a
	// message while printing every FDE: only no output is a failure.
	frames, err := exec.Command(readelf, "--debug-dump=frames", libc).Output()
	if len(frames) == 0 {
		t.Fatalf("readelf --debug-dump=frames %s: %v", libc, err)
	}
	signalCIEs := map[string]bool{}
	var cie string
	in, fdes := false, 0
	offsets := map[int]uint64{}
	for _, line := range strings.Split(string(frames), "\n") {
		if m := cieLine.FindStringSubmatch(line); m != nil {
			cie, in = m[1], false
			continue
		}
		if m := augLine.FindStringSubmatch(line); m != nil && cie != "" && strings.Contains(m[1], "S") {
			signalCIEs[cie] = true
			continue
		}
		if m := fdeLine.FindStringSubmatch(line); m != nil {
			cie = ""
			in = signalCIEs[m[1]]
			if in {
				fdes++
			}
			continue
		}
		if m := exprLine.FindStringSubmatch(line); m != nil && in {
			r, _ := strconv.Atoi(m[1])
			off, _ := strconv.ParseUint(m[2], 10, 64)
			offsets[r] = off
		}
	}
	if fdes != 1 || len(offsets) == 0 {
		t.Fatalf("%s: %d signal-frame FDEs with %d saved registers, want __restore_rt's alone", libc, fdes, len(offsets))
	}
	return offsets
}

// TestIsSigreturnBothABIs: the trampoline is recognized by its code in
// either ABI (musl and static programs may have no CFI for it).
func TestIsSigreturnBothABIs(t *testing.T) {
	for _, code := range [][]byte{sigreturnCode, sigreturnCodeX32} {
		if !isSigreturn(codeAt(0x1000, code), 0x1000) {
			t.Errorf("% x not recognized as rt_sigreturn", code)
		}
	}
	if isSigreturn(codeAt(0x1000, []byte{0x48, 0xc7, 0xc0, 0x3c, 0x00, 0x00, 0x00, 0x0f, 0x05}), 0x1000) {
		t.Error("exit's system call taken for rt_sigreturn")
	}
}

// TestStepX32SigreturnWithoutCFI: a thread stopped in x32's trampoline,
// with no CFI for it, continues at the registers its ucontext_x32 holds.
func TestStepX32SigreturnWithoutCFI(t *testing.T) {
	const pc, sp = 0x1000, 0x8000
	ctx := make([]byte, x32Sigframe.mcontext+uint64(len(sigcontextRegs))*8)
	for i := range sigcontextRegs {
		binary.LittleEndian.PutUint64(ctx[x32Sigframe.mcontext+uint64(i)*8:], 0x40000+uint64(i))
	}
	mem := &unwindtest.Space{Ptr: 4, Mem: []unwindtest.Region{{Addr: pc, Data: sigreturnCodeX32}, {Addr: sp, Data: ctx}}}
	a := Arch{x32: true}
	callee, caller := unwind.NewFrame(NumRegs), unwind.NewFrame(NumRegs)
	callee.Set(RIP, pc, unwind.SaveLoc{})
	callee.Set(RSP, sp, unwind.SaveLoc{})
	if _, err := a.Step(mem, unwind.NewCache(unwind.CacheNone), callee, caller); err != nil {
		t.Fatal(err)
	}
	for i, reg := range sigcontextRegs {
		if got, _ := caller.Get(reg); got != 0x40000+uint64(i) {
			t.Errorf("%s = %#x, want %#x", RegName(uint64(reg)), got, 0x40000+uint64(i))
		}
	}
	if caller.Trust != unwind.TrustContext {
		t.Errorf("trust %v, want the signal context's", caller.Trust)
	}
}

// codeAt is memory holding code at addr alone.
func codeAt(addr uint64, code []byte) *unwindtest.Space {
	return &unwindtest.Space{Mem: []unwindtest.Region{{Addr: addr, Data: code}}}
}
