package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/mdtest"
)

// TestMinidumpCrashpadAnnotations: Crashpad's annotations, added to a
// real minidump (core2md writes none), are in the JSON report's
// core.annotations and the text report's header, the process's first,
// then the module's under its path (text: its file name); the frames
// are the plain minidump's.
func TestMinidumpCrashpadAnnotations(t *testing.T) {
	c := crashToMinidump(t, "mdcrash")
	data, err := os.ReadFile(c.Minidump)
	if err != nil {
		t.Fatal(err)
	}
	mod := c.Dump.Modules[1]
	annotated, err := mdtest.WithCrashpadInfo(data, [][2]string{{"ver", "1.2.3"}, {"channel", "beta"}}, 1,
		[]string{"plugin loaded"}, [][2]string{{"plugin", "on"}})
	if err != nil {
		t.Fatal(err)
	}
	dmp := filepath.Join(c.Dir, "annotated.dmp")
	if err := os.WriteFile(dmp, annotated, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCoreunwind(t, "--format", "json", dmp)
	var got struct {
		Core struct {
			Annotations []struct {
				Module *string `json:"module"`
				Key    *string `json:"key"`
				Value  string  `json:"value"`
			} `json:"annotations"`
		} `json:"core"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatalf("JSON: %v\n%s", err, truncate(r.Stdout, 2000))
	}
	var flat []string
	for _, a := range got.Core.Annotations {
		s := ""
		if a.Module != nil {
			s += *a.Module + " | "
		}
		if a.Key != nil {
			s += *a.Key + " = "
		}
		flat = append(flat, s+a.Value)
	}
	want := []string{"ver = 1.2.3", "channel = beta", mod.Name + " | plugin loaded", mod.Name + " | plugin = on"}
	if !slices.Equal(flat, want) {
		t.Errorf("annotations %q, want %q", flat, want)
	}
	text := runCoreunwind(t, dmp).Stdout
	base := filepath.Base(mod.Name)
	wantText := "annotations:\n  ver: 1.2.3\n  channel: beta\n  " + base + ": plugin loaded\n  " + base + ": plugin: on\n"
	if !strings.Contains(text, wantText) {
		t.Errorf("text report lacks\n%s\nit is:\n%s", wantText, truncate(text, 3000))
	}
	plain, _ := unwindJSON(t, nil, c.Minidump)
	withAnn, _ := unwindJSON(t, nil, dmp)
	if th, th2 := plain.thread(plain.Core.CrashedTID), withAnn.thread(withAnn.Core.CrashedTID); th == nil || th2 == nil ||
		hexList(reportPCs(th, true)) != hexList(reportPCs(th2, true)) {
		t.Errorf("the crashed thread differs with the annotations")
	}
}
