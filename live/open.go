package live

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/coreunwind/coreunwind/corefile"
)

// Open opens the snapshot as a core: the threads and copies it took,
// over the running process's memory (corefile.Options.Memory) and files.
// Unless opts say otherwise, the files are the process's own: its
// executable through /proc/PID/exe (even deleted or replaced since) and
// the rest where /proc/PID/maps names them (filesRoot). The Core's Path
// is /proc/PID. The snapshot must stay open while the Core is in use.
func (s *Snapshot) Open(opts corefile.Options) (*corefile.Core, error) {
	b, err := s.CoreBytes()
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", s.PID, err)
	}
	opts.Memory = s.mem
	if opts.Sysroot == "" {
		opts.Sysroot = filesRoot(s.dir)
	}
	if opts.Executable == "" {
		opts.Executable = s.exePath()
	}
	c, err := corefile.OpenBytes(b, opts)
	if err != nil {
		return nil, fmt.Errorf("process %d: %w", s.PID, err)
	}
	c.Path = procDir(s.PID)
	for _, th := range c.Threads {
		th.Name = threadName(s.PID, th.TID)
	}
	// A running process has not crashed: no thread is the crashing one
	// (corefile takes the first thread of a core without a signal).
	c.CrashedTID = 0
	c.Warnings = append(c.Warnings, s.Warnings...)
	return c, nil
}

// threadName is thread tid's name (its comm, which pthread_setname_np
// sets), "" when it is gone.
func threadName(pid, tid int) string {
	b, err := os.ReadFile(filepath.Join(procDir(pid), "task", strconv.Itoa(tid), "comm"))
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(b), "\n")
}

// filesRoot is the root under which the paths of the maps of the
// process whose /proc directory is dir name its files: the kernel writes them as seen from the
// reader's root where it can, so for a process of coreunwind's own mount
// namespace (chrooted or not) they are paths of ours ("": as they are;
// under /proc/PID/root they named nothing for a chrooted process); a
// process of another mount namespace (a container) gets paths of its
// own namespace, reached through /proc/PID/root.
func filesRoot(dir string) string {
	ours, err1 := os.Readlink("/proc/self/ns/mnt")
	theirs, err2 := os.Readlink(filepath.Join(dir, "ns", "mnt"))
	if err1 == nil && err2 == nil && ours == theirs {
		return ""
	}
	return dir + "/root"
}
