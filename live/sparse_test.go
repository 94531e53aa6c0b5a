package live

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCoreOutputSparse: zeros owed become holes in a file (its end too,
// by its size) and zero bytes elsewhere; the bytes read back the same
// either way.
func TestCoreOutputSparse(t *testing.T) {
	const mib = 1 << 20
	data := bytes.Repeat([]byte("core"), pageSize/4)
	write := func(o *coreOutput) {
		o.Write([]byte("header"))
		o.zeros(8 * mib)
		if err := o.data(append(append(data, make([]byte, 4*mib)...), data...)); err != nil {
			t.Fatal(err)
		}
		o.zeros(8 * mib)
		if err := o.finish(); err != nil {
			t.Fatal(err)
		}
	}
	var want bytes.Buffer
	write(newCoreOutput(&want))
	if want.Len() != 6+20*mib+2*pageSize {
		t.Fatalf("%d bytes written to memory", want.Len())
	}
	path := filepath.Join(t.TempDir(), "core")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	write(newCoreOutput(f))
	f.Close()
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the file holds other bytes (%d of them, %v) than memory (%d)", len(got), err, want.Len())
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	if st.Blocks*512 > 2*mib {
		t.Errorf("%d bytes of disk for %d bytes, 2 pages of them not zero", st.Blocks*512, st.Size)
	}
	// A device seeks but has no size: zeros are written to it.
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	o := newCoreOutput(null)
	o.zeros(pageSize)
	if err := o.finish(); err != nil {
		t.Errorf("a core ending in zeros written to %s: %v", os.DevNull, err)
	}
}
