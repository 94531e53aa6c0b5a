package debuginfod

import (
	"net/http"
	"path"
	"path/filepath"

	"github.com/coreunwind/coreunwind/internal/regfile"
)

// regularFiles is the file system file:// URLs are served from: the
// whole tree, as http.Dir("/"), but opening regular files only. A named
// pipe where a file would be blocked the download in open(2).
type regularFiles struct{}

func (regularFiles) Open(name string) (http.File, error) {
	return regfile.Open(filepath.FromSlash(path.Clean("/" + name)))
}
