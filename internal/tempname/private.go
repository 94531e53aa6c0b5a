package tempname

import (
	"fmt"
	"os"
)

// InPrivateDir runs fn with TMPDIR pointing at a new directory of this
// kind (named by Pattern), restored and removed afterwards whatever fn
// did: what fn, or a library it calls, leaves in os.TempDir() goes with
// it. TMPDIR is the process's, so fn is the only thing that should be
// making temporary files meanwhile. dir is passed to fn.
func InPrivateDir(kind string, fn func(dir string) error) error {
	dir, err := os.MkdirTemp("", Pattern(kind))
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	old, had := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	defer func() {
		if had {
			os.Setenv("TMPDIR", old)
		} else {
			os.Unsetenv("TMPDIR")
		}
	}()
	return fn(dir)
}
