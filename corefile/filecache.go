package corefile

import (
	"errors"
	"os"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/coreunwind/coreunwind/internal/mapfault"
)

// FileCache shares the files that fill cores' memory across a batch of
// cores: each file is mapped and its build ID read once, however many
// cores refer to it. Without one, every core maps and checks its files
// itself (fine for one core; a third of the work per core in triage).
// A FileCache is safe for concurrent use; Close it after the last Core
// that used it is closed.
type FileCache struct {
	mu    sync.Mutex
	files map[fileKey]*cachedFile
	// buffers are free buffers for the cores read on demand (lazyCore).
	buffers [][]byte
}

// fileKey identifies a version of a file without reading it.
type fileKey struct {
	path string
	id   FileID
}

// FileID identifies a version of a file by its metadata: a file
// replaced under the same path between two cores (a rebuilt binary, a
// copy with the same size and time) is a new inode. The zero FileID is
// unknown.
type FileID struct {
	Dev, Ino    uint64
	Size, Mtime int64 // Mtime in nanoseconds
}

// cachedFile is one mapped file and what resolving modules needs of it.
type cachedFile struct {
	once    sync.Once
	id      FileID
	data    []byte
	err     error // mapping failed
	elf     bool
	buildID string
	idErr   error
	loads   []progHeader // fileLoads, read once for every core
}

// NewFileCache returns an empty cache.
func NewFileCache() *FileCache { return &FileCache{files: map[fileKey]*cachedFile{}} }

// get maps path (once per version of the file) and reads its build ID.
func (fc *FileCache) get(path string) (*cachedFile, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	key := fileKey{path, FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: int64(st.Size), Mtime: st.Mtim.Nano()}}
	fc.mu.Lock()
	if fc.files == nil {
		fc.files = map[fileKey]*cachedFile{}
	}
	f, ok := fc.files[key]
	if !ok {
		f = &cachedFile{id: key.id}
		fc.files[key] = f
	}
	fc.mu.Unlock()
	f.once.Do(func() {
		f.data, f.err = mapPath(path)
		if f.err == nil {
			f.elf = isELF(f.data)
			if f.elf {
				f.buildID, f.idErr = imageBuildID(sliceReader(f.data), false, 0)
				f.loads = fileLoads(f.data)
			}
		}
	})
	return f, f.err
}

// Close unmaps every file. Cores that used the cache must not be read
// afterwards.
func (fc *FileCache) Close() error {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	var errs []error
	for _, f := range fc.files {
		if f.data != nil {
			errs = append(errs, unmap(f.data))
		}
	}
	fc.files = map[fileKey]*cachedFile{}
	fc.buffers = nil
	return errors.Join(errs...)
}

// FileBuildID returns the GNU build ID (hex) of the ELF file at path, ""
// when it has none. Batch tools use it to index directories of binaries
// for Options.FindByBuildID.
// A file truncated while it is read gives an error wrapping
// ErrFileChanged.
func FileBuildID(path string) (id string, err error) {
	data, err := mapPath(path)
	if err != nil {
		return "", err
	}
	defer unmap(data)
	if fault := mapfault.Catch(func() {
		if !isELF(data) {
			err = errors.New(path + ": not an ELF file")
			return
		}
		id, err = imageBuildID(sliceReader(data), false, 0)
	}); fault != nil {
		return "", fault
	}
	return id, err
}
