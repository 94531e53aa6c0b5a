package corefile

import (
	"os"
	"slices"
	"testing"

	"github.com/coreunwind/coreunwind/internal/mdtest"
	"github.com/coreunwind/coreunwind/minidump"
)

// TestMinidumpAnnotations: Crashpad's annotations become the core's, the
// process's first, then the module's list and simple ones under the
// module's name.
func TestMinidumpAnnotations(t *testing.T) {
	data, err := os.ReadFile(minidumpSeed)
	if err != nil {
		t.Fatal(err)
	}
	d, err := minidump.Parse(data)
	if err != nil || len(d.Modules) < 2 {
		t.Fatalf("seed: %v, %d modules", err, len(d.Modules))
	}
	data, err = mdtest.WithCrashpadInfo(data, [][2]string{{"ver", "1.2.3"}, {"channel", "beta"}}, 1, []string{"list entry"}, [][2]string{{"plugin", "on"}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := OpenBytes(data, Options{Sysroot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	mod := d.Modules[1].Name
	want := []Annotation{{Key: "ver", Value: "1.2.3"}, {Key: "channel", Value: "beta"},
		{Module: mod, Value: "list entry", List: true}, {Module: mod, Key: "plugin", Value: "on"}}
	if !slices.Equal(c.Annotations, want) {
		t.Errorf("annotations %+v, want %+v", c.Annotations, want)
	}
}
