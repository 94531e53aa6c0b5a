// Package refbt parses the backtraces of the reference tools the tests
// compare coreunwind with: gdb's `bt` and `thread apply all bt` (also
// `bt N` / `bt -N` slices, gdb-multiarch, gdb through qemu's gdbstub) and
// eu-stack's. It is the one parser of their text in the repository.
// Tests only.
package refbt

import (
	"bufio"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Frame is one frame as a reference tool prints it.
type Frame struct {
	Index int
	PC    uint64
	// HasPC is false where the tool printed no address: gdb's
	// "<signal handler called>", and frames whose pc is at a line start
	// without -frame-info location-and-address.
	HasPC bool
	// Func is the name as printed, without arguments; "" where the tool
	// has none (gdb's "??", the signal frame).
	Func string
	// Signal marks gdb's "<signal handler called>".
	Signal bool
	File   string
	Line   int
	Raw    string // the tool's line(s), for failure messages
}

func (f Frame) String() string {
	if f.Raw != "" {
		return f.Raw
	}
	return fmt.Sprintf("#%d 0x%x %s", f.Index, f.PC, f.Func)
}

// Thread is one thread's backtrace.
type Thread struct {
	TID    int
	Frames []Frame
}

var (
	// "Thread 2 (Thread 0x7f.. (LWP 6437)):", "Thread 1 (LWP 6436):", and
	// through qemu's gdbstub "Thread 1.4567 (...)" or "Thread 2 (Thread 1.4568)".
	gdbThreadRE = regexp.MustCompile(`^Thread (?:\d+\.(\d+)\b|\d+ \(.*?(?:LWP |Thread \d+\.)(\d+))`)
	gdbFrameRE  = regexp.MustCompile(`^#(\d+)\s+(?:(0x[0-9a-f]+) in )?(.*)$`)
	gdbAtRE     = regexp.MustCompile(` at (\S+):(\d+)$`)
	euThreadRE  = regexp.MustCompile(`^TID (\d+):`)
	euFrameRE   = regexp.MustCompile(`^#(\d+)\s+0x([0-9a-f]+)\s+(?:- 1\s+)?(.*)$`)
	euSourceRE  = regexp.MustCompile(`^\s+(\S+?):(\d+)(?::\d+)?$`)
)

// ParseGDBFrame reads one gdb frame line ("#3  0x... in f (a=1) at x.c:4").
func ParseGDBFrame(line string) (Frame, bool) {
	m := gdbFrameRE.FindStringSubmatch(line)
	if m == nil {
		return Frame{}, false
	}
	f := Frame{Raw: line}
	f.Index, _ = strconv.Atoi(m[1])
	if m[2] != "" {
		f.PC, _ = strconv.ParseUint(m[2][2:], 16, 64)
		f.HasPC = true
	}
	rest := m[3]
	switch {
	case strings.HasPrefix(rest, "<signal handler called>"):
		f.Signal = true
	case strings.HasPrefix(rest, "<"):
	default:
		f.Func = rest
		if i := strings.Index(rest, " ("); i >= 0 {
			f.Func = rest[:i]
		} else if i := strings.IndexByte(rest, ' '); i >= 0 {
			f.Func = rest[:i] // "f from /lib/x.so"
		}
	}
	if f.Func == "??" {
		f.Func = ""
	}
	if a := gdbAtRE.FindStringSubmatch(rest); a != nil {
		f.File = a[1]
		f.Line, _ = strconv.Atoi(a[2])
	}
	return f, true
}

// ParseGDB reads the output of "thread apply all bt": threads by id. Only
// frame lines inside a "Thread N (... LWP tid)" section count; gdb
// repeats frame 0 of the current thread before the sections, which is
// ignored.
func ParseGDB(out string) map[int]*Thread {
	threads := map[int]*Thread{}
	var cur *Thread
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := gdbThreadRE.FindStringSubmatch(line); m != nil {
			tid, _ := strconv.Atoi(m[1] + m[2])
			cur = &Thread{TID: tid}
			threads[tid] = cur
			continue
		}
		if cur == nil {
			continue
		}
		if f, ok := ParseGDBFrame(line); ok {
			cur.Frames = append(cur.Frames, f)
		}
	}
	return threads
}

// ParseGDBFrames reads every frame line of a single-thread gdb backtrace
// ("bt", "bt 20", "bt -10"), in order.
func ParseGDBFrames(out string) []Frame {
	var frames []Frame
	for _, line := range strings.Split(out, "\n") {
		if f, ok := ParseGDBFrame(line); ok {
			frames = append(frames, f)
		}
	}
	return frames
}

// ParseEuStack reads "eu-stack [-i] [-s] [-a]" output: "TID n:" sections,
// frame lines "#N  0xpc [- 1] name" and, with -s, an indented
// "file:line:col" line.
func ParseEuStack(out string) map[int]*Thread {
	threads := map[int]*Thread{}
	var cur *Thread
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := euThreadRE.FindStringSubmatch(line); m != nil {
			tid, _ := strconv.Atoi(m[1])
			cur = &Thread{TID: tid}
			threads[tid] = cur
			continue
		}
		if cur == nil {
			continue
		}
		if m := euFrameRE.FindStringSubmatch(line); m != nil {
			f := Frame{Raw: line, HasPC: true}
			f.Index, _ = strconv.Atoi(m[1])
			f.PC, _ = strconv.ParseUint(m[2], 16, 64)
			f.Func = strings.TrimSpace(m[3])
			cur.Frames = append(cur.Frames, f)
			continue
		}
		if m := euSourceRE.FindStringSubmatch(line); m != nil && len(cur.Frames) > 0 {
			f := &cur.Frames[len(cur.Frames)-1]
			f.File = m[1]
			f.Line, _ = strconv.Atoi(m[2])
			f.Raw += " " + strings.TrimSpace(line)
		}
	}
	return threads
}
