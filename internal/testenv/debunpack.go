package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// UnpackedDebs downloads Debian packages (apt-get download: "name" or
// "name=version") and unpacks them (dpkg -x) into one directory named
// name in the user's cache directory, once per machine, without
// installing them: for reference tools and libraries whose installation
// would harm the machine or the other tests. It returns that directory,
// which holds probe (a path inside it) when it is ready. apt-get failing
// skips the test, or fails it under CI=true.
func UnpackedDebs(t testing.TB, name string, pkgs []string, probe string) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(cache, "coreunwind-tests")
	root := filepath.Join(base, name)
	if _, err := os.Stat(filepath.Join(root, probe)); err == nil {
		return root
	}
	aptGet := NeedTool(t, "apt-get")
	dpkg := NeedTool(t, "dpkg")
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
	debs := filepath.Join(tmp, "debs")
	if err := os.Mkdir(debs, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(aptGet, append([]string{"download"}, pkgs...)...)
	cmd.Dir = debs
	if out, err := cmd.CombinedOutput(); err != nil {
		Unavailable(t, fmt.Sprintf("apt-get download %s: %v\n%s", strings.Join(pkgs, " "), err, out))
	}
	files, err := filepath.Glob(filepath.Join(debs, "*.deb"))
	if err != nil || len(files) != len(pkgs) {
		Unavailable(t, fmt.Sprintf("apt-get download %s gave %d packages: %v", strings.Join(pkgs, " "), len(files), err))
	}
	unpacked := filepath.Join(tmp, "root")
	for _, f := range files {
		if out, err := exec.Command(dpkg, "-x", f, unpacked).CombinedOutput(); err != nil {
			t.Fatalf("dpkg -x %s: %v\n%s", f, err, out)
		}
	}
	if err := os.Rename(unpacked, root); err != nil && !os.IsExist(err) {
		if _, serr := os.Stat(filepath.Join(root, probe)); serr != nil {
			t.Fatalf("unpacking %s: %v", strings.Join(pkgs, " "), err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, probe)); err != nil {
		t.Fatalf("%s unpacked hold no %s: %v", strings.Join(pkgs, " "), probe, err)
	}
	return root
}
