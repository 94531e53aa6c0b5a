package pylayout

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// TestLayoutInLiveInterpreter hands each installed Python the generated
// layout of its version and build; testdata/live.py follows every member
// through the interpreter's own memory (ctypes) and compares what it finds
// with what Python says is there: the ids of a code object's attributes,
// this thread's ident and native id in the thread list, the GIL held by
// this thread, the exception being handled, the frame running and its
// caller. Debian's python3.11 and python3.11d (python3.11-dbg) are
// required under CI=true; pyenv's versions are checked where installed.
func TestLayoutInLiveInterpreter(t *testing.T) {
	var pythons []string
	for _, p := range []string{"/usr/bin/python3.11", "/usr/bin/python3.11d"} {
		if _, err := os.Stat(p); err != nil {
			testenv.Unavailable(t, "Debian's python3.11 and python3.11-dbg: "+err.Error())
			continue
		}
		pythons = append(pythons, p)
	}
	pyenv, _ := filepath.Glob(filepath.Join(pyenvRoot(), "versions", "3.*", "bin", "python3"))
	pythons = append(pythons, pyenv...)
	script, err := filepath.Abs(filepath.Join("testdata", "live.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, py := range pythons {
		t.Run(py, func(t *testing.T) {
			out, err := exec.Command(py, "-c", "import sys, sysconfig; print(sys.version_info[0], sys.version_info[1], sysconfig.get_config_var('Py_DEBUG') or 0, sysconfig.get_config_var('Py_GIL_DISABLED') or 0)").Output()
			if err != nil {
				t.Fatal(err)
			}
			var v Version
			var debug, ft int
			if _, err := fmt.Sscan(string(out), &v.Major, &v.Minor, &debug, &ft); err != nil {
				t.Fatalf("%q: %v", out, err)
			}
			var b Build
			if debug != 0 {
				b |= Debug
			}
			if ft != 0 {
				b |= FreeThreaded
			}
			l, err := Lookup(v, b)
			if err != nil {
				t.Fatal(err)
			}
			in, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(py, script)
			cmd.Stdin = strings.NewReader(string(in))
			cmd.Stderr = os.Stderr
			res, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v", script, err)
			}
			var checked map[string]string
			if err := json.Unmarshal(res, &checked); err != nil {
				t.Fatalf("%v: %s", err, res)
			}
			for path, problem := range checked {
				if problem != "" {
					t.Errorf("%s %s: %s: %s", v, b, path, problem)
				}
			}
			// Every member the script knows how to check was checked
			// where the layout has it.
			for _, path := range liveChecked(l) {
				if _, ok := checked[path]; !ok {
					t.Errorf("%s %s: %s was not checked", v, b, path)
				}
			}
			t.Logf("%s %s: %d members checked", v, b, len(checked))
		})
	}
}

// liveChecked lists the members live.py checks that l has: all but
// sizes, the legacy string pointer, the exception being raised (not
// observable from Python) and the 3.6 frame's line number field.
func liveChecked(l Layout) []string {
	skip := map[string]bool{
		"Runtime.Size": true, "Interp.Size": true, "Thread.Size": true, "Frame.Size": true,
		"Unicode.Data": true, "FrameObject.Lineno": true, "Thread.ExcState": true,
		"Thread.CurExcType": true, "Thread.CurExcValue": true, "Thread.CurExcTraceback": true, "Thread.CurrentException": true,
		"CFrame.Previous": true, "Frame.StackTop": true, "Object.Size": true, "Code.Size": !l.Version.AtLeast(3, 11),
		"Code.CodeUnitSize": true, "GIL.Enabled": true, "Frame.OwnerThread": true,
	}
	var paths []string
	lv := reflect.ValueOf(l)
	for i := range lv.NumField() {
		s := lv.Field(i)
		if s.Kind() != reflect.Struct || s.Type() == reflect.TypeFor[Version]() {
			continue
		}
		for j := range s.NumField() {
			path := lv.Type().Field(i).Name + "." + s.Type().Field(j).Name
			f := s.Field(j)
			has := f.CanInt() && f.Int() >= 0 || f.CanUint() && f.Uint() != 0
			if has && !skip[path] {
				paths = append(paths, path)
			}
		}
	}
	return paths
}
