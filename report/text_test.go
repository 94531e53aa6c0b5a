package report

import "testing"

// Descriptions follow the name, whatever the target numbers it (SIGBUS
// is 7 on x86, 10 on PA-RISC and HP-UX).
func TestSignalDescription(t *testing.T) {
	for name, want := range map[string]string{
		"SIGSEGV": "Segmentation fault", "SIGBUS": "Bus error", "SIGABRT": "Aborted",
		"SIG37": "Real-time signal 3", "SIG99": "", "SIGNOPE": "",
	} {
		if got := SignalDescription(name); got != want {
			t.Errorf("SignalDescription(%q) = %q, want %q", name, got, want)
		}
	}
}
