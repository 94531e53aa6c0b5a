package elfx

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

// SymbolValues finds data and code symbols, in .symtab and .dynsym, at
// the values nm prints.
func TestSymbolValuesMatchNm(t *testing.T) {
	dir := t.TempDir()
	const src = `
int exported_counter = 7;
static int hidden_table[4] = {1, 2, 3, 4};
int *keep(void) { return hidden_table; }
int main(void) { return *keep() + exported_counter; }
`
	exe := testenv.BuildC(t, dir, "vals", src, "-O0", "-rdynamic")
	nm := testenv.NeedTool(t, "nm")
	out, err := exec.Command(nm, exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 3 {
			v, _ := strconv.ParseUint(f[0], 16, 64)
			want[f[2]] = v
		}
	}
	o, err := Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	names := []string{"exported_counter", "hidden_table", "keep", "main", "no_such_symbol"}
	got := o.SymbolValues(names...)
	for _, n := range names {
		if got[n] != want[n] {
			t.Errorf("%s: %#x, nm says %#x", n, got[n], want[n])
		}
	}
	if _, ok := got["no_such_symbol"]; ok {
		t.Error("an undefined name was found")
	}

	// Stripped, only .dynsym is left, read through its GNU hash table:
	// the exported names keep their values, the static one is gone.
	stripped := testenv.BuildC(t, dir, "vals-stripped", src, "-O0", "-rdynamic", "-s")
	so, err := Open(stripped)
	if err != nil {
		t.Fatal(err)
	}
	defer so.Close()
	if _, ok := so.gnuHash(); !ok {
		t.Fatal("no GNU hash table read in the stripped program")
	}
	got = so.SymbolValues(names...)
	for _, n := range []string{"exported_counter", "keep", "main"} {
		if got[n] != want[n] {
			t.Errorf("stripped: %s: %#x, nm says %#x", n, got[n], want[n])
		}
	}
	for _, n := range []string{"hidden_table", "no_such_symbol"} {
		if v, ok := got[n]; ok {
			t.Errorf("stripped: %s found at %#x", n, v)
		}
	}
}

// anyStringIn finds a name stored whole or as the tail of a longer
// string (suffix merging), by a search that skips its leading
// underscores, and skips names already found.
func TestAnyStringIn(t *testing.T) {
	strs := []byte("\x00main\x00my_U_dyn_info_list\x00__jit_debug_descriptorX\x00_\x00")
	for _, c := range []struct {
		names []string
		found map[string]uint64
		want  bool
	}{
		{[]string{"_U_dyn_info_list"}, nil, true}, // the tail of my_U_dyn_info_list
		{[]string{"main"}, nil, true},
		{[]string{"__jit_debug_descriptor"}, nil, false}, // not NUL-terminated there
		{[]string{"_U_dyn_info_list_addr", "ma"}, nil, false},
		{[]string{"_"}, nil, true},
		{[]string{"main"}, map[string]uint64{"main": 1}, false},
		{nil, nil, false},
		// One search for a name and a longer one it starts.
		{[]string{"_U_dyn_info_list_addr", "_U_dyn_info_list"}, nil, true},
		{[]string{"_U_dyn_info_list", "__my_U_dyn_info_list_addr"}, nil, true},
		{[]string{"_jit_debug", "_jit_debug_descriptor"}, nil, true}, // a candidate only
		{[]string{"_mai", "_main_thread"}, nil, true},
		{[]string{"_ain_", "_ain_thread"}, nil, false},
	} {
		if got := anyStringIn(strs, c.names, c.found); got != c.want {
			t.Errorf("anyStringIn(%q, found %v) = %v, want %v", c.names, c.found, got, c.want)
		}
	}
}
