package e2e

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// The Python tests crash Debian's python3.11 (libpython linked into the
// executable) running the tests' own programs under -X faulthandler,
// which prints every thread's Python stack at the crash, and hold
// coreunwind's Python frames of every thread to what faulthandler printed
// and to what gdb's py-bt (python3.11-dbg's gdb extension) reads from the
// same core.

// debianPython is Debian's interpreter: not whatever python3.11 the PATH
// finds first (a pyenv shim on the development machines).
const debianPython = "/usr/bin/python3.11"

// pySegvExtension is a C extension: crash_now dereferences NULL; call
// calls its argument from C, so that the Python frames below and above
// it run in two calls of the evaluator.
const pySegvExtension = `#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *crash_now(PyObject *self, PyObject *unused)
{
	volatile int *p = NULL;
	*p = 42;
	Py_RETURN_NONE;
}

static PyObject *call(PyObject *self, PyObject *f)
{
	return PyObject_CallObject(f, NULL);
}

static PyMethodDef methods[] = {
	{"crash_now", crash_now, METH_NOARGS, NULL},
	{"call", call, METH_O, NULL},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "segv", NULL, -1, methods};

PyMODINIT_FUNC PyInit_segv(void) { return PyModule_Create(&module); }
`

// pyPrograms are the crashing programs, by name.
var pyPrograms = map[string]string{
	// Three threads: the main one crashes in the extension, called
	// through it; one sleeps in a loop (it waits for the GIL when it
	// wakes); one waits on a lock without the GIL.
	"threads": `import sys, threading, time
sys.path.insert(0, ".")
import segv

class Sleeper:
    def run(self, ready):
        ready.release()
        while True:
            time.sleep(0.05)

def blocked(lock, ready):
    ready.release()
    lock.acquire()

def inner():
    segv.crash_now()

def via_c():
    segv.call(inner)

def main():
    ready = threading.Semaphore(0)
    lock = threading.Lock()
    lock.acquire()
    threading.Thread(target=Sleeper().run, args=(ready,), daemon=True).start()
    threading.Thread(target=blocked, args=(lock, ready), daemon=True).start()
    ready.acquire()
    ready.acquire()
    time.sleep(0.2)
    via_c()

main()
`,
	// os.abort() while an exception is being handled.
	"abort": `import os

class Store:
    def commit(self):
        try:
            raise RuntimeError("state is broken")
        except RuntimeError:
            os.abort()

def main():
    Store().commit()

main()
`,
	// Deeper than faulthandler prints (100 frames).
	"recursion": `import os

def down(n):
    if n == 0:
        os.abort()
    return down(n - 1)

down(150)
`,
	// Coroutines run by asyncio's event loop.
	"asyncio": `import asyncio, os

async def fetch(i):
    await asyncio.sleep(0)
    if i == 2:
        os.abort()
    return i

async def main():
    await asyncio.gather(*(fetch(i) for i in range(4)))

asyncio.run(main())
`,
}

// pyFrame is one Python frame as the tools print it.
type pyFrame struct {
	File string
	Line int // -1 for faulthandler's "???"
	Name string
}

func (f pyFrame) String() string {
	return fmt.Sprintf("File %q, line %d, in %s", f.File, f.Line, f.Name)
}

// pyStack is one thread's Python frames, the innermost first; Cut: the
// tool printed no more ("  ..." after faulthandler's 100 frames).
type pyStack struct {
	Frames []pyFrame
	Cut    bool
}

var (
	// (coreunwind's --python-only adds ", tid N".)
	fhThread = regexp.MustCompile(`^(Current thread|Thread) (0x[0-9a-f]+)(?:, tid \d+)? \(most recent call first\):$`)
	fhFrame  = regexp.MustCompile(`^  File "(.*)", line (\d+|\?\?\?) in (.*)$`)
)

// parseFaulthandler reads faulthandler's dump: stacks by pthread id and
// the id of the "Current thread" (the crashed one).
func parseFaulthandler(out string) (stacks map[uint64]*pyStack, current uint64) {
	stacks = map[uint64]*pyStack{}
	var cur *pyStack
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := fhThread.FindStringSubmatch(line); m != nil {
			id, _ := strconv.ParseUint(m[2][2:], 16, 64)
			cur = &pyStack{}
			stacks[id] = cur
			if m[1] == "Current thread" {
				current = id
			}
			continue
		}
		if cur == nil {
			continue
		}
		if m := fhFrame.FindStringSubmatch(line); m != nil {
			n, err := strconv.Atoi(m[2])
			if err != nil {
				n = -1
			}
			cur.Frames = append(cur.Frames, pyFrame{m[1], n, m[3]})
		} else if line == "  ..." {
			cur.Cut = true
		}
	}
	for _, st := range stacks {
		// faulthandler prints at most 100 frames (MAX_FRAME_DEPTH); 3.13
		// stops there without its "  ..." line.
		st.Cut = st.Cut || len(st.Frames) >= faulthandlerMaxFrames
	}
	return stacks, current
}

// faulthandlerMaxFrames is faulthandler's MAX_FRAME_DEPTH.
const faulthandlerMaxFrames = 100

var (
	pyBtThread = regexp.MustCompile(`^Thread \d+ \(Thread 0x[0-9a-f]+ \(LWP (\d+)\)\):$`)
	pyBtFrame  = regexp.MustCompile(`^  File "(.*)", line (\d+), in (.*)$`)
)

// parsePyBt reads gdb's "thread apply all py-bt": stacks by LWP. The
// lines py-bt prints for C functions (<built-in method ...>) are not
// Python frames.
func parsePyBt(out string) map[int]*pyStack {
	stacks := map[int]*pyStack{}
	var cur *pyStack
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := pyBtThread.FindStringSubmatch(line); m != nil {
			lwp, _ := strconv.Atoi(m[1])
			cur = &pyStack{}
			stacks[lwp] = cur
		} else if m := pyBtFrame.FindStringSubmatch(line); m != nil && cur != nil {
			n, _ := strconv.Atoi(m[2])
			cur.Frames = append(cur.Frames, pyFrame{m[1], n, m[3]})
		}
	}
	return stacks
}

// pythonFrames are a thread's Python frames in coreunwind's report,
// named by the last part of the qualified name (co_name, what
// faulthandler and py-bt print).
func pythonFrames(th *reportThread) []pyFrame {
	var out []pyFrame
	for _, f := range th.Frames {
		if f.Language != "python" {
			continue
		}
		name := f.Function
		// co_name has no dot; the qualified name adds its scopes.
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			name = name[i+1:]
		}
		line := f.Line
		if line == 0 {
			line = -1
		}
		out = append(out, pyFrame{f.File, line, name})
	}
	return out
}

// samePyFrames says how got (coreunwind's) differs from want (a tool's),
// "" when it does not: every frame the tool printed, and no more unless
// the tool cut the stack.
func samePyFrames(got []pyFrame, want *pyStack) string {
	if len(got) < len(want.Frames) || !want.Cut && len(got) != len(want.Frames) {
		return fmt.Sprintf("%d frames, want %d (cut: %v)\n got: %v\nwant: %v", len(got), len(want.Frames), want.Cut, firstFrames(got), firstFrames(want.Frames))
	}
	for i, w := range want.Frames {
		if got[i] != w {
			return fmt.Sprintf("frame %d is %v, want %v", i, got[i], w)
		}
	}
	return ""
}

// firstFrames prints a stack's first frames: enough to see a difference.
func firstFrames(fs []pyFrame) string {
	if len(fs) > 8 {
		return fmt.Sprintf("%v ... (%d more)", fs[:8], len(fs)-8)
	}
	return fmt.Sprint(fs)
}

// pythonCrash is a Python program's crash and coreunwind's report of it.
type pythonCrash struct {
	crash
	Report       *report
	Faulthandler map[uint64]*pyStack
	Current      uint64
}

// crashPython runs the program name under python -X faulthandler (with
// the C extension built beside it) and reads its core.
func crashPython(t *testing.T, python, name string) *pythonCrash {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		testenv.Unavailable(t, python+" is not installed (Debian package python3.11)")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "app.py"), []byte(pyPrograms[name]), 0o644); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(pyPrograms[name], "import segv") {
		buildSegvExtension(t, python, dir)
	}
	core, out := testenv.CrashIn(t, dir, python, nil, "-X", "faulthandler", "app.py")
	c := &pythonCrash{crash: crash{Dir: dir, Exe: python, Core: core, Output: string(out)}}
	c.Faulthandler, c.Current = parseFaulthandler(c.Output)
	if len(c.Faulthandler) == 0 || c.Current == 0 {
		t.Fatalf("faulthandler printed no current thread:\n%s", c.Output)
	}
	c.Report, _ = unwindJSON(t, nil, core, python)
	if c.Report.Python == nil {
		t.Fatalf("the report has no python interpreter; warnings: %q", c.Report.Warnings)
	}
	return c
}

// buildSegvExtension builds pySegvExtension into dir as segv.so against
// the interpreter's headers (python3.11-dev).
func buildSegvExtension(t *testing.T, python, dir string) {
	t.Helper()
	inc, err := exec.Command(python, "-c", "import sysconfig; print(sysconfig.get_paths()['include'])").Output()
	if err != nil {
		t.Fatalf("%s: %v", python, err)
	}
	include := strings.TrimSpace(string(inc))
	if _, err := os.Stat(filepath.Join(include, "Python.h")); err != nil {
		testenv.Unavailable(t, "no Python.h under "+include+" (Debian package python3.11-dev)")
	}
	src := filepath.Join(dir, "segv.c")
	if err := os.WriteFile(src, []byte(pySegvExtension), 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Build(t, "gcc", "-shared", "-fPIC", "-g", "-O0", "-I"+include, "-o", filepath.Join(dir, "segv.so"), src)
}

// compareFaulthandler holds every thread's Python frames to
// faulthandler's.
func (c *pythonCrash) compareFaulthandler(t *testing.T) {
	t.Helper()
	seen := 0
	for i := range c.Report.Threads {
		th := &c.Report.Threads[i]
		if th.Python == nil {
			continue
		}
		id, ok := parseHex(th.Python.ThreadID)
		fh := c.Faulthandler[id]
		if !ok || fh == nil {
			t.Errorf("thread %d: python thread id %s is none faulthandler printed", th.TID, th.Python.ThreadID)
			continue
		}
		seen++
		if (id == c.Current) != th.Crashed {
			t.Errorf("thread %d: crashed %v, but faulthandler's current thread is %#x", th.TID, th.Crashed, c.Current)
		}
		if msg := samePyFrames(pythonFrames(th), fh); msg != "" {
			t.Errorf("thread %d (%s): against faulthandler: %s", th.TID, th.Python.ThreadID, msg)
		}
		if th.Python.Error != nil {
			t.Errorf("thread %d: python error %q", th.TID, *th.Python.Error)
		}
	}
	if seen != len(c.Faulthandler) {
		t.Errorf("the report has %d of faulthandler's %d Python threads", seen, len(c.Faulthandler))
	}
}

// comparePyBt holds every thread's Python frames to gdb's py-bt on the
// same core.
func (c *pythonCrash) comparePyBt(t *testing.T) {
	t.Helper()
	gdb := testenv.NeedTool(t, "gdb")
	ext := "/usr/share/gdb/auto-load" + c.Exe + "-gdb.py"
	if _, err := os.Stat(ext); err != nil {
		testenv.Unavailable(t, "no "+ext+": py-bt needs the Debian package python3.11-dbg")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, gdb, "-nx", "-batch", "-iex", "set auto-load safe-path /",
		"-ex", "thread apply all py-bt", c.Exe, c.Core).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb py-bt: %v\n%s", err, out)
	}
	bt := parsePyBt(string(out))
	if len(bt) == 0 {
		t.Fatalf("gdb printed no thread:\n%s", out)
	}
	for i := range c.Report.Threads {
		th := &c.Report.Threads[i]
		want := bt[th.TID]
		if want == nil {
			t.Errorf("gdb has no thread %d", th.TID)
			continue
		}
		if msg := samePyFrames(pythonFrames(th), want); msg != "" {
			t.Errorf("thread %d: against gdb's py-bt: %s", th.TID, msg)
		}
	}
}

// noEvaluatorFrames says the evaluator frames of threads with Python
// frames were all replaced.
func (c *pythonCrash) noEvaluatorFrames(t *testing.T) {
	t.Helper()
	for _, th := range c.Report.Threads {
		for _, f := range th.Frames {
			if th.Python != nil && f.Function == "_PyEval_EvalFrameDefault" {
				t.Errorf("thread %d: frame %d is still the evaluator's: %s", th.TID, f.Index, f)
			}
		}
	}
}

// TestPythonExtensionSegfault: a C extension's NULL dereference under
// three threads. Every thread's Python frames are faulthandler's and
// py-bt's; the crashed thread's native frames of the extension sit above
// the Python frames that called them, and the extension's call() between
// the two evaluator runs it splits; the crashed thread holds the GIL.
func TestPythonExtensionSegfault(t *testing.T) {
	t.Parallel()
	c := crashPython(t, debianPython, "threads")
	c.compareFaulthandler(t)
	c.comparePyBt(t)
	c.comparePythonOnly(t)
	c.noEvaluatorFrames(t)
	th := c.Report.thread(c.Report.Core.CrashedTID)
	if th == nil {
		t.Fatal("no crashed thread")
	}
	var order []string
	for _, f := range th.Frames {
		switch {
		case f.Language == "python":
			order = append(order, "py:"+f.Function)
		case f.Function == "crash_now" || f.Function == "call":
			order = append(order, "c:"+f.Function)
		}
	}
	want := "c:crash_now py:inner c:call py:via_c py:main py:<module>"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("crashed thread's extension and Python frames: %s, want %s", got, want)
	}
	holders := 0
	for _, th := range c.Report.Threads {
		if th.Python != nil && th.Python.HoldsGIL {
			holders++
			if !th.Crashed {
				t.Errorf("thread %d holds the GIL, not the crashed one", th.TID)
			}
		}
	}
	if holders != 1 {
		t.Errorf("%d threads hold the GIL, want 1 (the crashed one)", holders)
	}
}

// TestPythonAbort: os.abort() in an except block: the exception handled
// is the report's, type and message.
func TestPythonAbort(t *testing.T) {
	t.Parallel()
	c := crashPython(t, debianPython, "abort")
	c.compareFaulthandler(t)
	c.comparePyBt(t)
	c.comparePythonOnly(t)
	c.noEvaluatorFrames(t)
	th := c.Report.thread(c.Report.Core.CrashedTID)
	if th == nil || th.Python == nil {
		t.Fatal("the crashed thread has no Python thread state")
	}
	e := th.Python.Exception
	if e == nil || e.Type != "RuntimeError" || e.Message == nil || *e.Message != "state is broken" || !e.Handled {
		t.Errorf("exception %+v, want RuntimeError: state is broken, handled", e)
	}
	if fs := pythonFrames(th); len(fs) == 0 || fs[0].Name != "commit" {
		t.Errorf("innermost Python frame: %v, want Store.commit", fs)
	}
}

// comparePythonOnly holds coreunwind's --python-only view, which
// prints as faulthandler does, to what faulthandler printed: the same
// threads, each with the same frames (by co_name: the view prints the
// qualified names) and the same current thread.
func (c *pythonCrash) comparePythonOnly(t *testing.T) {
	t.Helper()
	out := runCoreunwind(t, "--python-only", c.Core, c.Exe)
	if out.Code != exitOK {
		t.Fatalf("--python-only: exit %d\n%s", out.Code, out.Stderr)
	}
	view, current := parseFaulthandler(out.Stdout)
	if current != c.Current || len(view) != len(c.Faulthandler) {
		t.Fatalf("--python-only: %d threads, current %#x; faulthandler %d, %#x:\n%s", len(view), current, len(c.Faulthandler), c.Current, out.Stdout)
	}
	for id, st := range view {
		for i := range st.Frames {
			if j := strings.LastIndexByte(st.Frames[i].Name, '.'); j >= 0 {
				st.Frames[i].Name = st.Frames[i].Name[j+1:]
			}
		}
		if msg := samePyFrames(st.Frames, c.Faulthandler[id]); msg != "" {
			t.Errorf("--python-only thread %#x: %s", id, msg)
		}
	}
}

// TestPythonRecursion: 151 frames of one function, past faulthandler's
// 100: coreunwind has them all (and py-bt, which does not cut, agrees).
func TestPythonRecursion(t *testing.T) {
	t.Parallel()
	c := crashPython(t, debianPython, "recursion")
	c.compareFaulthandler(t)
	c.comparePyBt(t)
	th := c.Report.thread(c.Report.Core.CrashedTID)
	if th == nil {
		t.Fatal("no crashed thread")
	}
	down := 0
	for _, f := range pythonFrames(th) {
		if f.Name == "down" {
			down++
		}
	}
	if down != 151 {
		t.Errorf("%d frames of down, want 151", down)
	}
}

// TestPythonAsyncio: coroutines under asyncio's event loop.
func TestPythonAsyncio(t *testing.T) {
	t.Parallel()
	c := crashPython(t, debianPython, "asyncio")
	c.compareFaulthandler(t)
	c.comparePyBt(t)
	th := c.Report.thread(c.Report.Core.CrashedTID)
	if fs := pythonFrames(th); len(fs) == 0 || fs[0].Name != "fetch" {
		t.Errorf("innermost Python frame: %v, want fetch", fs)
	}
}

// TestPythonGarbageInterpreter: a core whose interpreter list holds a
// garbage pointer gives the native report unchanged (the report of
// --no-python) and a warning that says why the Python frames are left out.
func TestPythonGarbageInterpreter(t *testing.T) {
	t.Parallel()
	c := crashPython(t, debianPython, "abort")
	exe, err := elf.Open(c.Exe)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	syms, err := exe.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	var runtime uint64
	for _, s := range syms {
		if s.Name == "_PyRuntime" {
			runtime = s.Value
		}
	}
	if runtime == 0 {
		t.Fatalf("%s defines no _PyRuntime", c.Exe)
	}
	// _PyRuntime.interpreters (mutex, head, main, next_id) is 32 bytes
	// from its start in 3.11.
	bad := filepath.Join(c.Dir, "core.garbage")
	corruptCore(t, c.Core, bad, runtime+32, bytes.Repeat([]byte{0x5a, 0xa5, 0x11, 0x77, 0, 0, 0, 0x40}, 4))
	garbled, _ := unwindJSON(t, nil, bad, c.Exe)
	native, _ := unwindJSON(t, []string{"--no-python"}, bad, c.Exe)
	if len(garbled.Threads) != len(native.Threads) {
		t.Fatalf("%d threads, --no-python %d", len(garbled.Threads), len(native.Threads))
	}
	for i := range garbled.Threads {
		g, n := &garbled.Threads[i], &native.Threads[i]
		if fmt.Sprint(g.Frames) != fmt.Sprint(n.Frames) {
			t.Errorf("thread %d: frames differ from --no-python's:\n%v\n%v", g.TID, g.Frames, n.Frames)
		}
	}
	warned := false
	for _, w := range garbled.Warnings {
		warned = warned || strings.HasPrefix(w, "python: ")
	}
	if !warned {
		t.Errorf("no python warning: %q", garbled.Warnings)
	}
}

// corruptCore copies the core src to dst with data written over the
// bytes that hold the process's memory at addr.
func corruptCore(t *testing.T, src, dst string, addr uint64, data []byte) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	done := false
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr+uint64(len(data)) <= p.Vaddr+p.Filesz {
			copy(b[p.Off+addr-p.Vaddr:], data)
			done = true
		}
	}
	if !done {
		t.Fatalf("the core holds no memory at %#x", addr)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// pyenvVersions are the CPython builds of a pyenv tree (PYENV_ROOT, else
// /root/.pyenv) from 3.7 on (_PyRuntime), by version directory. The development
// machines have one, built from source with shared libpythons; CI
// machines have Debian's python3.11 only, so TestPythonVersions checks
// what there is and skips (under CI=true too) where there is no tree.
func pyenvVersions(t *testing.T) map[string]string {
	root := os.Getenv("PYENV_ROOT")
	if root == "" {
		root = "/root/.pyenv"
	}
	dirs, _ := filepath.Glob(filepath.Join(root, "versions", "3.*"))
	out := map[string]string{}
	for _, d := range dirs {
		v := filepath.Base(d)
		var minor int
		if _, err := fmt.Sscanf(v, "3.%d.", &minor); err != nil || minor < 7 {
			continue
		}
		if exe := filepath.Join(d, "bin", "python3"); fileExists(exe) {
			out[v] = exe
		}
	}
	testenv.NeedPyVersions(t, len(out), root)
	return out
}

// TestPythonVersions: every pyenv CPython from 3.7 (frame objects,
// 3.10's line table, 3.11's entry markers, 3.12's shim frames, 3.13's
// _Py_DebugOffsets; shared libpython), each program: every thread's
// Python frames equal faulthandler's.
func TestPythonVersions(t *testing.T) {
	t.Parallel()
	for v, exe := range pyenvVersions(t) {
		for _, prog := range []string{"threads", "abort", "recursion", "asyncio"} {
			t.Run(v+"/"+prog, func(t *testing.T) {
				c := crashPython(t, exe, prog)
				c.compareFaulthandler(t)
				c.noEvaluatorFrames(t)
			})
		}
	}
}

// TestPythonTriage: triage signs crashes under Debian's python3.11 by
// their Python frames: the extension's segfault by its C function and
// the Python function that called it, the two os.abort() crashes (one
// in an except block, one 400 calls deep) each by its Python function,
// not all by the interpreter's evaluator frames.
func TestPythonTriage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, prog := range []string{"threads", "abort", "recursion"} {
		c := crashPython(t, debianPython, prog)
		if err := os.Rename(c.Core, filepath.Join(dir, "core."+prog)); err != nil {
			t.Fatal(err)
		}
	}
	r := runCoreunwind(t, "triage", "--format", "json", dir)
	if r.Code != exitOK {
		t.Fatalf("triage: exit %d: %s", r.Code, r.Stderr)
	}
	var tri struct {
		Buckets []struct {
			Signature string `json:"signature"`
			Count     int    `json:"count"`
		} `json:"buckets"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &tri); err != nil {
		t.Fatalf("triage JSON: %v\n%s", err, r.Stdout)
	}
	got := map[string]int{}
	for _, b := range tri.Buckets {
		got[b.Signature] = b.Count
	}
	want := map[string]int{
		"crash_now | app.py:inner": 1,
		"app.py:Store.commit":      1,
		"app.py:down":              1,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("triage buckets (signature: cores) %v, want %v", got, want)
	}
}
