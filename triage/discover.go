package triage

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/coreunwind/coreunwind/container"
	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/internal/regfile"
	"github.com/coreunwind/coreunwind/report"
)

// Input is one thing that looked like a core: a file, or a member of a
// tar archive extracted (and decompressed) into a temporary file.
type Input struct {
	// Name is what reports and failures call the core: its path, or
	// "ARCHIVE:MEMBER" for a tar member.
	Name string
	// Path is the file to open: the core itself (maybe compressed: Open
	// decompresses it) or the extracted copy of an archive member.
	Path string
	// SearchDirs are where to look for its binaries besides --binaries:
	// the core's directory, or the binaries extracted from its archive.
	SearchDirs []string
	// Time is when the process crashed: from a systemd-coredump name,
	// else the file's (or archive member's) modification time.
	Time time.Time
	// Err says why the input is not a readable core (it was still
	// counted: it looked like one).
	Err error
	// Origin is the crash report the core came in (a journal entry, an
	// apport .crash file, an ABRT problem directory: containers.go);
	// nil for a core file.
	Origin *report.Origin

	remove string // extracted copy to delete when done
}

// Close deletes an extracted copy.
func (in *Input) Close() {
	if in.remove != "" {
		os.Remove(in.remove)
		in.remove = ""
	}
}

// discoverer walks the paths given on the command line.
type discoverer struct {
	tempDir func() (string, error) // where archive members are extracted
	yield   func(*Input) bool
	stopped bool
	nTar    int
}

// errStopped ends a walk early when the consumer stops.
var errStopped = errors.New("stopped")

// discover finds the cores under paths and passes each to yield, in order,
// until yield returns false: ListFiles, then DiscoverFile of each file.
func discover(paths []string, tempDir func() (string, error), yield func(*Input) bool) error {
	d := &discoverer{tempDir: tempDir, yield: yield}
	return ListFiles(paths, func(f ListedFile) bool {
		if f.Err != nil {
			return d.emit(&Input{Name: f.Path, Err: f.Err})
		}
		return d.file(f.Path, f.Path, f.Explicit)
	})
}

// ListedFile is a regular file found under the paths given to triage, an
// ABRT problem directory (one crash), or a path that could not be read.
type ListedFile struct {
	Path string
	// Explicit: the path was named on the command line, not found in a
	// directory (then it is reported even when it is not a core).
	Explicit bool
	Err      error // the path, or a directory under it, could not be read
}

// ListFiles walks paths (directories recursively) and passes each
// regular file, and each path that cannot be read, to yield, in order,
// until yield returns false. Its error is the walk's own.
func ListFiles(paths []string, yield func(ListedFile) bool) error {
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			if !yield(ListedFile{Path: p, Err: err}) {
				return nil
			}
			continue
		}
		if !fi.IsDir() || container.IsProblemDir(p) {
			if !yield(ListedFile{Path: p, Explicit: true}) {
				return nil
			}
			continue
		}
		err = filepath.WalkDir(p, func(q string, e fs.DirEntry, err error) error {
			if err != nil {
				if !yield(ListedFile{Path: q, Err: err}) {
					return errStopped
				}
				return nil
			}
			if e.IsDir() && q != p && container.IsProblemDir(q) {
				// An ABRT problem directory is one crash: listed as
				// one, its coredump file not as a core of its own.
				if !yield(ListedFile{Path: q}) {
					return errStopped
				}
				return fs.SkipDir
			}
			if !e.Type().IsRegular() {
				return nil
			}
			if !yield(ListedFile{Path: q}) {
				return errStopped
			}
			return nil
		})
		if errors.Is(err, errStopped) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// DiscoverFile finds the cores in one listed file: the file itself, or
// the members of a tar archive, extracted one at a time into tempDir
// (their binaries into tempDir/bin1, searched by the archive's cores).
// Each is passed to yield until it returns false (DiscoverFile then
// returns false too); the caller closes every Input it got (deleting an
// extracted copy). name is what the inputs are called (path for a local
// file; where the file came from when path is a downloaded copy), and
// what its kind and time are read from when the content does not say.
// What does not look like a core is passed over silently: ELF
// executables and libraries, and other files unless their name says
// "core" or they were named explicitly.
func DiscoverFile(name, path string, explicit bool, tempDir string, yield func(*Input) bool) bool {
	d := &discoverer{tempDir: func() (string, error) { return tempDir, nil }, yield: yield}
	return d.file(name, path, explicit)
}

func (d *discoverer) emit(in *Input) bool {
	if d.stopped {
		in.Close()
		return false
	}
	if !d.yield(in) {
		d.stopped = true
	}
	return !d.stopped
}

// looksLikeCoreName: names the kernel, systemd-coredump, abrt and people
// give cores. A file so named that is not a core is reported, not skipped.
func looksLikeCoreName(name string) bool {
	b := strings.ToLower(path.Base(name))
	for _, ext := range []string{".zst", ".xz", ".gz", ".lz4"} {
		b = strings.TrimSuffix(b, ext)
	}
	return b == "core" || strings.HasPrefix(b, "core.") || strings.HasSuffix(b, ".core") ||
		strings.HasPrefix(b, "core-") || strings.HasSuffix(b, "-core") || b == "coredump"
}

// looksLikeTarName: archives are recognized by name first (a compressed
// tar cannot be told from a compressed core without decompressing).
func looksLikeTarName(name string) bool {
	b := strings.ToLower(name)
	for _, ext := range []string{".tar", ".tar.gz", ".tgz", ".tar.zst", ".tzst", ".tar.xz", ".txz", ".tar.lz4"} {
		if strings.HasSuffix(b, ext) {
			return true
		}
	}
	return false
}

// coreTime is when a core was written: the systemd name's time, else mtime.
func coreTime(name string, mtime time.Time) time.Time {
	if n, ok := corefile.ParseSystemdName(path.Base(name)); ok {
		return n.Time.Truncate(time.Second)
	}
	return mtime.UTC().Truncate(time.Second)
}

// file handles one regular file, called name, stored at p; explicit
// says it was named on the command line (then it is reported even when
// it is not a core).
func (d *discoverer) file(name, p string, explicit bool) bool {
	if looksLikeTarName(name) {
		return d.tar(name, p)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return d.emit(&Input{Name: name, Err: err})
	}
	if fi.IsDir() {
		if container.IsProblemDir(p) {
			return d.container(name, p)
		}
		return d.emit(&Input{Name: name, Err: fmt.Errorf("%w: a directory that is not an ABRT problem directory", corefile.ErrNotCore)})
	}
	s, err := corefile.SniffFile(p)
	in := &Input{Name: name, Path: p, SearchDirs: []string{filepath.Dir(p)}, Time: coreTime(name, fi.ModTime())}
	switch {
	case err != nil:
		in.Err = err
	case s.Kind == corefile.KindCore:
	case isTarFile(p):
		return d.tar(name, p)
	case s.Kind == corefile.KindOther && s.Compression == "" && container.Detect(p) != container.KindNone:
		return d.container(name, p)
	case s.Kind == corefile.KindELF:
		if !explicit {
			return true // a binary beside the cores
		}
		in.Err = fmt.Errorf("%w: an ELF executable or library (give binaries with --binaries)", corefile.ErrNotCore)
	case !explicit && !looksLikeCoreName(name):
		return true
	case s.Kind == corefile.KindBroken:
		in.Err = s.Err
	default:
		in.Err = fmt.Errorf("%w: no ELF header", corefile.ErrNotCore)
	}
	return d.emit(in)
}

// isTarFile says whether a file is a tar archive by its content (the
// "ustar" magic at offset 257), compressed or not.
func isTarFile(p string) bool {
	f, err := regfile.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	r, _, done, err := corefile.NewDecompressor(f)
	if err != nil {
		return false
	}
	defer done()
	var hdr [512]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return false
	}
	return bytes.HasPrefix(hdr[257:], []byte("ustar"))
}

// tar streams an archive: each core member is extracted (decompressed,
// sparse) to a temporary file and passed on; binaries are extracted into
// a directory that the archive's cores search by name. name is what the
// archive is called, p where it is.
func (d *discoverer) tar(name, p string) bool {
	f, err := regfile.Open(p)
	if err != nil {
		return d.emit(&Input{Name: name, Err: err})
	}
	defer f.Close()
	r, _, done, err := corefile.NewDecompressor(f)
	if err != nil {
		return d.emit(&Input{Name: name, Err: err})
	}
	defer done()
	d.nTar++
	tempDir, tempErr := d.tempDir()
	binDir := filepath.Join(tempDir, fmt.Sprintf("bin%d", d.nTar))
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return true
		}
		if err != nil {
			return d.emit(&Input{Name: name, Err: fmt.Errorf("tar archive: %w", err)})
		}
		switch {
		case h.Typeflag == tar.TypeReg || h.Typeflag == tar.TypeGNUSparse || h.Typeflag == tar.TypeCont:
			// archive/tar expands an old GNU sparse member's holes
			// (tar -S, typeflag 'S') as it reads; a contiguous file
			// ('7') is a regular file to every tar but the one that
			// wrote it.
		case looksLikeCoreName(h.Name) && h.Typeflag != tar.TypeDir:
			// Named like a core but holding no content: said, not
			// passed over (a batch must not lose a core silently).
			in := &Input{Name: name + ":" + h.Name, Time: coreTime(h.Name, h.ModTime),
				Err: fmt.Errorf("%w: tar member %s", corefile.ErrNotCore, memberKind(h))}
			if !d.emit(in) {
				return false
			}
			continue
		default:
			continue
		}
		br := bufio.NewReaderSize(tr, 1<<18)
		head, _ := br.Peek(1 << 18)
		s, _ := corefile.Sniff(bytes.NewReader(head))
		in := &Input{Name: name + ":" + h.Name, SearchDirs: []string{binDir, filepath.Dir(p)}, Time: coreTime(h.Name, h.ModTime)}
		switch {
		case s.Kind == corefile.KindCore && tempErr != nil:
			in.Err = fmt.Errorf("extracting: %w", tempErr)
		case s.Kind == corefile.KindCore:
			in.Path, in.Err = d.extract(br, tempDir, "core-*")
			in.remove = in.Path
		case s.Kind == corefile.KindOther && s.Compression == "" && container.DetectHead(head) != container.KindNone:
			if !d.containerMember(name+":"+h.Name, br, h.ModTime, tempDir, tempErr) {
				return false
			}
			continue
		case s.Kind == corefile.KindELF:
			if tempErr != nil {
				continue // the archive's cores say why
			}
			os.MkdirAll(binDir, 0o755)
			if base := path.Base(h.Name); base != "." && base != "/" && base != ".." {
				if out, err := os.Create(filepath.Join(binDir, base)); err == nil {
					corefile.DecompressTo(out, br)
					out.Close()
				}
			}
			continue
		case !looksLikeCoreName(h.Name):
			continue
		case s.Kind == corefile.KindBroken:
			in.Err = s.Err
		default:
			in.Err = fmt.Errorf("%w: no ELF header", corefile.ErrNotCore)
		}
		if !d.emit(in) {
			return false
		}
	}
}

// extract copies a member, decompressed and sparse, into a new file.
func (d *discoverer) extract(r io.Reader, dir, pattern string) (string, error) {
	out, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", err
	}
	_, _, err = corefile.DecompressTo(out, r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out.Name())
		return "", fmt.Errorf("extracting: %w", err)
	}
	return out.Name(), nil
}

// memberKind says what a tar member that holds no file content is.
func memberKind(h *tar.Header) string {
	switch h.Typeflag {
	case tar.TypeLink:
		return "is a hard link to " + h.Linkname + " (read under that name)"
	case tar.TypeSymlink:
		return "is a symbolic link to " + h.Linkname + " (not followed)"
	case tar.TypeChar, tar.TypeBlock:
		return "is a device node"
	case tar.TypeFifo:
		return "is a FIFO"
	}
	return fmt.Sprintf("has type %q, which holds no file content", h.Typeflag)
}
