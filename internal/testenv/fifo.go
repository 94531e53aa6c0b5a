package testenv

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Mkfifo makes a named pipe at path: an input that blocks open(2) for
// reading until a writer comes, as code that forgets to check for
// regular files finds out.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	if err := unix.Mkfifo(path, 0o600); err != nil {
		t.Fatalf("mkfifo %s: %v", path, err)
	}
}

// NoHang runs f and fails the test when it has not returned within
// limit. A regression that blocks in open(2) on one of fifos then fails
// the test instead of hanging it: every FIFO is opened and closed for
// writing, over and over, which lets a blocked reader through (it reads
// end-of-file) until f returns; only then does the test fail, so f may
// use t.
func NoHang(t testing.TB, limit time.Duration, what string, f func(), fifos ...string) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return
	case <-time.After(limit):
	}
	for {
		for _, p := range fifos {
			// Fails (ENXIO) unless a reader has the FIFO open.
			if fd, err := unix.Open(p, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0); err == nil {
				unix.Close(fd)
			}
		}
		select {
		case <-done:
			t.Fatalf("%s: blocked for more than %v (a named pipe opened for reading?)", what, limit)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
