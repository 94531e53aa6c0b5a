package corefile

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestImageGoBuildID reads the Go build ID of this test binary, a Go
// program, and compares it with what go tool buildid says; its GNU build
// ID, which Go 1.24+ links outside the PT_NOTE segment, is not there.
func TestImageGoBuildID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	got, err := imageGoBuildID(sliceReader(data), false, 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(testenv.NeedTool(t, "go"), "tool", "buildid", exe).Output()
	if err != nil {
		t.Fatalf("go tool buildid: %v", err)
	}
	if want := strings.TrimSpace(string(out)); got != want {
		t.Errorf("Go build ID %q, go tool buildid says %q", got, want)
	}
}
