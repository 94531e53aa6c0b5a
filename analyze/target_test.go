package analyze

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestReportOpensFrameModules checks that a report's walk opens the
// objects of the modules its frames are in and no other, with and
// without symbols: libm, linked and mapped but never called, stays
// unopened and is still listed as found.
func TestReportOpensFrameModules(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "lazymods", `
#include <stdlib.h>
__attribute__((noinline)) void crash(volatile int *p) { *p = 1; }
int main(void) { crash(NULL); return 0; }
`, "-O1", "-g", "-Wl,--no-as-needed", "-lm")
	core, _ := testenv.Crash(t, exe)
	for _, unwindOnly := range []bool{true, false} {
		t.Run(fmt.Sprintf("unwindOnly=%v", unwindOnly), func(t *testing.T) {
			checkFrameModulesOpened(t, core, exe, unwindOnly)
		})
	}
}

func checkFrameModulesOpened(t *testing.T, core, exe string, unwindOnly bool) {
	c, err := corefile.Open(core, corefile.Options{Executable: exe})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	opts := Options{Executable: exe, UnwindOnly: unwindOnly}
	s := newSession(c, opts, true)
	defer s.objs.Close()
	tg := s.target
	for _, m := range tg.modules {
		if m.tried.Load() {
			t.Errorf("%s opened before any frame asked for it", m.core.Path)
		}
	}
	inFrames := map[string]bool{}
	for _, th := range orderThreads(c, false) {
		_, frames := walkThread(tg, s.arch, s.cache, th, c, opts)
		for _, f := range frames {
			if m := tg.module(f.lookup); m != nil {
				inFrames[m.core.Path] = true
			}
		}
	}
	if !inFrames[exe] {
		t.Fatalf("no frame in %s: %v", exe, inFrames)
	}
	sawLibm := false
	for _, m := range tg.modules {
		libm := strings.HasPrefix(filepath.Base(m.core.Path), "libm.so")
		sawLibm = sawLibm || libm
		switch {
		case inFrames[m.core.Path] && m.opened == nil:
			t.Errorf("%s holds frames but was not opened", m.core.Path)
		case libm && m.tried.Load():
			t.Errorf("%s holds no frame but was opened", m.core.Path)
		}
	}
	if !sawLibm {
		t.Fatal("libm is not among the core's modules")
	}
	for _, rm := range moduleInfo(tg) {
		if strings.HasPrefix(filepath.Base(rm.Path), "libm.so") && !rm.Found {
			t.Errorf("unopened %s listed as not found", rm.Path)
		}
	}
}
