package testenv

import (
	"fmt"
	"os"
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
// downloaded and unpacked (once per machine, into the user's cache
// directory), never installed: its coredumpctl runs against the installed
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
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(cache, "coreunwind-tests")
	root := filepath.Join(base, "systemd-coredump-"+strings.NewReplacer("~", "_", ":", "_").Replace(version))
	tool := filepath.Join(root, "usr", "bin", "coredumpctl")
	if _, err := os.Stat(tool); err == nil {
		return tool
	}
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	// Unpacked beside, then renamed into place: concurrent test
	// processes each unpack their own and the first rename wins.
	tmp, err := os.MkdirTemp(base, "unpack-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	get := exec.Command("apt-get", "download", "systemd-coredump="+version)
	get.Dir = tmp
	if out, err := get.CombinedOutput(); err != nil {
		Unavailable(t, fmt.Sprintf("apt-get download systemd-coredump=%s: %v\n%s", version, err, out))
	}
	debs, _ := filepath.Glob(filepath.Join(tmp, "systemd-coredump_*.deb"))
	if len(debs) != 1 {
		t.Fatalf("apt-get download systemd-coredump=%s gave %q", version, debs)
	}
	unpacked := filepath.Join(tmp, "root")
	if out, err := exec.Command("dpkg-deb", "-x", debs[0], unpacked).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -x %s: %v\n%s", debs[0], err, out)
	}
	if err := os.Rename(unpacked, root); err != nil && !os.IsExist(err) {
		if _, serr := os.Stat(tool); serr != nil {
			t.Fatalf("unpacking systemd-coredump: %v", err)
		}
	}
	if _, err := os.Stat(tool); err != nil {
		t.Fatalf("systemd-coredump %s has no coredumpctl: %v", version, err)
	}
	return tool
}
