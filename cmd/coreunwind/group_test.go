package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/testenv"
)

// A pool of workers parked on one mutex, two sleepers, and a main
// thread that crashes once all are parked.
const poolC = `
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#define WORKERS 24
static atomic_int ready;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
volatile int sink;
__attribute__((noinline)) static void *worker(void *arg) {
	atomic_fetch_add(&ready, 1);
	pthread_mutex_lock(&held);
	sink = 1;
	return arg;
}
__attribute__((noinline)) static void *sleeper(void *arg) {
	struct timespec ts = {1000, 0};
	atomic_fetch_add(&ready, 1);
	nanosleep(&ts, 0);
	return arg;
}
int main(void) {
	pthread_t t;
	pthread_mutex_lock(&held);
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&t, 0, worker, 0);
	pthread_create(&t, 0, sleeper, 0);
	pthread_create(&t, 0, sleeper, 0);
	while (atomic_load(&ready) < WORKERS + 2)
		;
	struct timespec ts = {0, 100000000};
	nanosleep(&ts, 0); /* let the last ones reach their wait */
	*(volatile int *)0 = 1;
	return 0;
}
`

// stackBlock is one header of the text report's thread section and the
// frame lines under it.
type stackBlock struct {
	header string
	frames string
}

func stackBlocks(out string) []stackBlock {
	var blocks []stackBlock
	for _, para := range strings.Split(out, "\n\n") {
		header, frames, _ := strings.Cut(strings.TrimRight(para, "\n"), "\n")
		if strings.HasPrefix(header, "Thread ") || groupHeaderRE.MatchString(header) {
			blocks = append(blocks, stackBlock{header, frames})
		}
	}
	return blocks
}

var groupHeaderRE = regexp.MustCompile(`^(\d+) threads \(([0-9, .]+)\) with this stack:$`)

// Threads with the same stack print once under one header; every thread
// of the per-thread output (--no-group) is accounted for, with the same
// frames; the crashed thread comes first on its own.
func TestGroupIdenticalStacks(t *testing.T) {
	dir := t.TempDir()
	exe := testenv.BuildC(t, dir, "pool", poolC, "-O1", "-g", "-pthread")
	core, _ := testenv.Crash(t, exe)
	code, grouped, stderr := runCLI(core, exe)
	if code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, each, stderr := runCLI(core, exe, "--no-group")
	if code != exitcode.OK {
		t.Fatalf("--no-group: exit %d: %s", code, stderr)
	}
	perThread := stackBlocks(each)
	if len(perThread) != 27 {
		t.Fatalf("--no-group printed %d threads, the program has 27:\n%s", len(perThread), each)
	}
	framesOf := map[string]string{} // tid -> frames, from --no-group
	count := map[string]int{}       // frames -> threads having them
	for _, b := range perThread {
		tid := strings.Fields(b.header)[1]
		tid = strings.TrimSuffix(tid, ":")
		framesOf[tid] = b.frames
		count[b.frames]++
	}
	blocks := stackBlocks(grouped)
	if len(blocks) == 0 || !strings.HasSuffix(blocks[0].header, "(crashed):") || blocks[0].frames != perThread[0].frames {
		t.Fatalf("the crashed thread is not first, alone:\n%s", grouped)
	}
	printed := 0
	biggest := 0
	for _, b := range blocks {
		m := groupHeaderRE.FindStringSubmatch(b.header)
		if m == nil {
			tid := strings.TrimSuffix(strings.Fields(b.header)[1], ":")
			if framesOf[tid] != b.frames {
				t.Errorf("thread %s: frames differ from --no-group's", tid)
			}
			if count[b.frames] != 1 {
				t.Errorf("thread %s printed alone, but %d threads have its stack", tid, count[b.frames])
			}
			printed++
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if count[b.frames] != n {
			t.Errorf("%q: %d threads have this stack in --no-group's output", b.header, count[b.frames])
		}
		ids := strings.Split(m[2], ", ")
		if n > maxIDs && (len(ids) != maxIDs+1 || ids[maxIDs] != "...") || n <= maxIDs && len(ids) != n {
			t.Errorf("%q: lists %d ids for %d threads", b.header, len(ids), n)
		}
		for _, id := range ids {
			if id != "..." && framesOf[id] != b.frames {
				t.Errorf("%q: thread %s has other frames in --no-group's output", b.header, id)
			}
		}
		printed += n
		biggest = max(biggest, n)
	}
	if printed != len(perThread) {
		t.Errorf("the grouped output accounts for %d threads, not %d", printed, len(perThread))
	}
	if biggest < 24 {
		t.Errorf("largest group has %d threads; the 24 workers share one stack:\n%s", biggest, grouped)
	}
	if strings.Count(grouped, "\n") >= strings.Count(each, "\n")/2 {
		t.Errorf("grouping saved few lines: %d vs %d", strings.Count(grouped, "\n"), strings.Count(each, "\n"))
	}
}

// maxIDs is the number of thread ids a group header lists.
const maxIDs = 10
