package container

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/coreunwind/coreunwind/journal"
)

// Kind is which container a path is.
type Kind int

const (
	KindNone    Kind = iota // none of them
	KindJournal             // a systemd journal file
	KindApport              // an apport .crash file
	KindABRT                // an ABRT problem directory
)

func (k Kind) String() string {
	switch k {
	case KindJournal:
		return "journal"
	case KindApport:
		return "apport"
	case KindABRT:
		return "abrt"
	}
	return "none"
}

// Detect says which container path is, by its content (a journal
// file's signature, an apport report's first field) or, for a
// directory, by the files ABRT writes. A path that cannot be read is
// KindNone.
func Detect(path string) Kind {
	fi, err := os.Stat(path)
	if err != nil {
		return KindNone
	}
	if fi.IsDir() {
		if IsProblemDir(path) {
			return KindABRT
		}
		return KindNone
	}
	if !fi.Mode().IsRegular() {
		return KindNone
	}
	f, err := os.Open(path)
	if err != nil {
		return KindNone
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	return DetectHead(head[:n])
}

// DetectHead says which container file starts with head (at least 64
// bytes of it, or the whole file): KindJournal, KindApport or KindNone.
func DetectHead(head []byte) Kind {
	switch {
	case journal.IsJournal(head):
		return KindJournal
	case isApportHead(head):
		return KindApport
	}
	return KindNone
}

// isApportHead: apport writes ProblemType first ("ProblemType: Crash").
func isApportHead(head []byte) bool {
	return bytes.HasPrefix(head, []byte("ProblemType: "))
}

// List returns the crashes in the container at path. A journal file
// lists its coredump entries (none is not an error); an entry that
// cannot be read is a Crash with Err set. The error is for the
// container as a whole.
func List(path string) ([]*Crash, error) {
	switch Detect(path) {
	case KindJournal:
		return listJournal(path)
	case KindApport:
		c, err := readApport(path)
		if err != nil {
			return nil, err
		}
		return []*Crash{c}, nil
	case KindABRT:
		c, err := readProblemDir(path)
		if err != nil {
			return nil, err
		}
		return []*Crash{c}, nil
	}
	return nil, fmt.Errorf("%s: not a journal file, apport .crash file or ABRT problem directory", path)
}
