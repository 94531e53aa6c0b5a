package triagebeam

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	// The object stores a fleet's archive lives in.
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"

	"github.com/coreunwind/coreunwind/outfile"
)

// listRemote lists the objects a URL glob matches. A URL matching only
// itself is a file named explicitly (reported even when it is no core).
func listRemote(glob string, emit func(File)) error {
	ctx := context.Background()
	fs, err := filesystem.New(ctx, glob)
	if err != nil {
		emit(File{Name: glob, Err: err.Error()})
		return nil
	}
	defer fs.Close()
	names, err := fs.List(ctx, glob)
	if err != nil {
		emit(File{Name: glob, Err: fmt.Sprintf("listing: %v", err)})
		return nil
	}
	if len(names) == 0 {
		emit(File{Name: glob, Err: "no such object"})
	}
	for _, n := range names {
		emit(File{Name: n, Remote: true, Explicit: n == glob})
	}
	return nil
}

// download copies an object into dir under its own base name (which
// says whether it is a tar, a compressed file, a systemd core) and gives
// the copy the object's modification time (a core's time when its name
// has none). Cores are read with random access: they are files first.
func download(ctx context.Context, url, dir string) (string, error) {
	fs, err := filesystem.New(ctx, url)
	if err != nil {
		return "", err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, url)
	if err != nil {
		return "", fmt.Errorf("download: %w", err)
	}
	defer r.Close()
	dst := filepath.Join(dir, path.Base(url))
	out, err := os.Create(dst)
	if err != nil {
		return "", fmt.Errorf("download: %w", err)
	}
	_, err = io.Copy(out, r)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("download: %w", err)
	}
	if lm, ok := fs.(filesystem.LastModifiedGetter); ok {
		if t, err := lm.LastModified(ctx, url); err == nil {
			os.Chtimes(dst, t, t)
		}
	}
	return dst, nil
}

// openOutput opens the output: a local file (outfile.Create, as
// `coreunwind triage -o` writes it: replaced only by a whole output), an
// object through Beam's filesystem, or stdout. The returned finish takes
// the writing's error and returns the first error of writing, closing
// and (a local file) renaming into place; after an error a local file is
// as it was.
func openOutput(ctx context.Context, out string) (w io.Writer, finish func(werr error) error, err error) {
	switch {
	case out == "":
		return os.Stdout, func(werr error) error { return werr }, nil
	case isURL(out):
		fs, err := filesystem.New(ctx, out)
		if err != nil {
			return nil, nil, err
		}
		w, err := fs.OpenWrite(ctx, out)
		if err != nil {
			fs.Close()
			return nil, nil, err
		}
		return w, func(werr error) error {
			if cerr := w.Close(); werr == nil {
				werr = cerr
			}
			fs.Close()
			return werr
		}, nil
	}
	f, err := outfile.Create(out)
	if err != nil {
		return nil, nil, err
	}
	return f, f.Commit, nil
}
