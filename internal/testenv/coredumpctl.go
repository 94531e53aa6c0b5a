package testenv

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Coredumpctl returns systemd's coredumpctl, the reference for reading
// coredump entries of journal files. Installing Debian's systemd-coredump
// package would rewrite the machine's kernel.core_pattern (to pipe every
// core to systemd-coredump), which the tests that crash programs need to
// be "core"; so the package of the installed systemd's version is only
// unpacked (UnpackedDebs): its coredumpctl runs against the installed
// libsystemd-shared. A coredumpctl on PATH is used as it is.
func Coredumpctl(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("coredumpctl"); err == nil {
		return p
	}
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", "systemd").Output()
	version := strings.TrimSpace(string(out))
	if err != nil || version == "" {
		Unavailable(t, fmt.Sprintf("coredumpctl: the installed systemd's version: %v", err))
	}
	tool := filepath.Join("usr", "bin", "coredumpctl")
	dir := "systemd-coredump-" + strings.NewReplacer("~", "_", ":", "_").Replace(version)
	return filepath.Join(UnpackedDebs(t, dir, []string{"systemd-coredump=" + version}, tool), tool)
}
