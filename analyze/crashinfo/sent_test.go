package crashinfo

import (
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/unwind"
	"github.com/coreunwind/coreunwind/x86_64"
)

// sentInput is a thread stopped at a `mov 0x18(%rax),%eax` with rax 0,
// killed by sig with code, sent by sender; the process is pid 42.
func sentInput(sig, code string, codeNum, sender int) *Input {
	arch := x86_64.Arch{}
	f0 := unwind.NewFrame(arch.NumRegs())
	f0.Set(x86_64.RIP, memBase, unwind.SaveLoc{})
	f0.Set(x86_64.RAX, 0, unwind.SaveLoc{})
	return &Input{Arch: arch, Mem: &fakeMem{memBase, []byte{0x8b, 0x40, 0x18}}, Frame0: f0, PID: 42,
		Signal: Signal{Name: sig, Code: codeNum, CodeName: code, SenderPID: sender, SenderUID: 1000, HasSender: true}}
}

// A signal another process sent decodes no instruction and names the
// sender; one the process raised itself says so, and keeps the
// instruction; abort's SIGABRT, raised by the process, is left to the
// abort analysis.
func TestSentSignal(t *testing.T) {
	c := Analyze(sentInput("SIGSEGV", "SI_USER", 0, 7))
	if c.Kind != "sent_signal" || c.Summary != "SIGSEGV (SI_USER) sent by pid 7 (uid 1000)" || c.Instruction != nil ||
		c.Sender == nil || c.Sender.PID != 7 || c.Sender.UID != 1000 {
		t.Errorf("sent by another process: %+v", c)
	}
	c = Analyze(sentInput("SIGSEGV", "SI_TKILL", -6, 42))
	if c.Kind != "signal" || !strings.Contains(c.Summary, "raised by the process itself") || c.Sender != nil ||
		c.Instruction == nil || c.Instruction.Text != "mov 0x18(%rax),%eax" {
		t.Errorf("raised by the process: %+v", c)
	}
	c = Analyze(sentInput("SIGABRT", "SI_TKILL", -6, 42))
	if c.Kind == "sent_signal" || strings.Contains(c.Summary, "raised by the process itself") || c.Sender != nil {
		t.Errorf("abort's own SIGABRT: %+v", c)
	}
}
