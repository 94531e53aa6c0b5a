package live

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// procDir is where the facts of process pid are, /proc/PID.
func procDir(pid int) string { return "/proc/" + strconv.Itoa(pid) }

// status is what the snapshot needs of /proc/PID/status.
type status struct {
	Name      string
	State     byte // R, S, D, T, t, Z, X ...
	PPID, UID int
	// TracerPID is the tracing thread's id (a thread of the tracer,
	// whose process is that thread's Tgid).
	TracerPID int
	Tgid      int
}

// readStatus reads /proc/PID/status (or /proc/PID/task/TID/status).
func readStatus(path string) (status, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return status{}, err
	}
	var st status
	for line := range strings.SplitSeq(string(b), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		first, _, _ := strings.Cut(val, "\t")
		switch key {
		case "Name":
			st.Name = val
		case "State":
			if val != "" {
				st.State = val[0]
			}
		case "PPid":
			st.PPID, _ = strconv.Atoi(first)
		case "Uid":
			st.UID, _ = strconv.Atoi(first)
		case "Tgid":
			st.Tgid, _ = strconv.Atoi(first)
		case "TracerPid":
			st.TracerPID, _ = strconv.Atoi(first)
		}
	}
	return st, nil
}

// taskIDs lists the threads of pid, in ascending order (the main thread,
// whose id is the pid, first).
func taskIDs(pid int) ([]int, error) {
	ents, err := os.ReadDir(filepath.Join(procDir(pid), "task"))
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	sort.Ints(tids)
	return tids, nil
}

// threadExited reports whether thread tid of pid is gone or a zombie
// (state Z or X): a thread that has exited while its process lives on.
func threadExited(pid, tid int) bool {
	st, err := readStatus(filepath.Join(procDir(pid), "task", strconv.Itoa(tid), "status"))
	return err != nil || st.State == 'Z' || st.State == 'X'
}

// hasLiveThread reports whether a thread of pid has not exited: a
// process whose main thread is a zombie may run on in others
// (pthread_exit in main).
func hasLiveThread(pid int) bool { return firstLiveThread(pid) != 0 }

// firstLiveThread is the first thread of pid that has not exited (0:
// none).
func firstLiveThread(pid int) int {
	tids, err := taskIDs(pid)
	if err != nil {
		return 0
	}
	for _, tid := range tids {
		if !threadExited(pid, tid) {
			return tid
		}
	}
	return 0
}

// mapping is one line of /proc/PID/maps.
type mapping struct {
	Start, End uint64
	Perms      string // "r-xp"
	Offset     uint64
	Inode      uint64
	Path       string // "" for anonymous memory; "[stack]", "[vdso]" ...
}

func (m mapping) readable() bool   { return m.Perms[0] == 'r' }
func (m mapping) writable() bool   { return m.Perms[1] == 'w' }
func (m mapping) executable() bool { return m.Perms[2] == 'x' }
func (m mapping) shared() bool     { return m.Perms[3] == 's' }

// fileBacked: a mapping of a file (inode set), not a pseudo-path such
// as [heap] or an anonymous mapping.
func (m mapping) fileBacked() bool { return m.Inode != 0 && strings.HasPrefix(m.Path, "/") }

// special: a kernel mapping whose pages are not the process's memory
// ([vvar] and friends are device pages a read may fault on; [vsyscall]
// is the same fixed page in every process).
func (m mapping) special() bool {
	return strings.HasPrefix(m.Path, "[vvar") || m.Path == "[vsyscall]"
}

// parseMaps parses /proc/PID/maps. Lines it cannot read are skipped: the
// kernel writes them, and one bad line should not cost the snapshot.
func parseMaps(b []byte) []mapping {
	var out []mapping
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if m, ok := parseMapsLine(sc.Text()); ok {
			out = append(out, m)
		}
	}
	return out
}

func parseMapsLine(line string) (mapping, bool) {
	var m mapping
	fields := strings.Fields(line)
	if len(fields) < 5 {
		return m, false
	}
	lo, hi, ok := strings.Cut(fields[0], "-")
	if !ok || len(fields[1]) != 4 {
		return m, false
	}
	var err1, err2, err3, err4 error
	m.Start, err1 = strconv.ParseUint(lo, 16, 64)
	m.End, err2 = strconv.ParseUint(hi, 16, 64)
	m.Offset, err3 = strconv.ParseUint(fields[2], 16, 64)
	m.Inode, err4 = strconv.ParseUint(fields[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || m.End <= m.Start {
		return m, false
	}
	m.Perms = fields[1]
	if len(fields) > 5 {
		// The path is the rest of the line after the inode's column,
		// spaces included.
		m.Path = afterFields(line, 5)
	}
	return m, true
}

// afterFields returns line after its first n space-separated fields and
// the spaces that follow them.
func afterFields(line string, n int) string {
	for ; n > 0; n-- {
		line = strings.TrimLeft(line, " ")
		i := strings.IndexByte(line, ' ')
		if i < 0 {
			return ""
		}
		line = line[i:]
	}
	return strings.TrimLeft(line, " ")
}

// mappingAt returns the mapping containing addr (maps sorted by Start).
func mappingAt(maps []mapping, addr uint64) (mapping, bool) {
	i := sort.Search(len(maps), func(i int) bool { return maps[i].End > addr })
	if i < len(maps) && maps[i].Start <= addr {
		return maps[i], true
	}
	return mapping{}, false
}

// readCmdline returns dir's cmdline with its NULs as spaces.
func readCmdline(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
	b = bytes.TrimRight(b, "\x00")
	return string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
}

// trimAuxv cuts /proc/PID/auxv after its AT_NULL entry (entries of two
// ptrSize words): the file may hold more.
func trimAuxv(b []byte, ptrSize int) []byte {
	entry := 2 * ptrSize
	for off := 0; off+entry <= len(b); off += entry {
		if allZero(b[off : off+ptrSize]) {
			return b[:off+entry]
		}
	}
	return b
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
