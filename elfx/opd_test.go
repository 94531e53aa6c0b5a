package elfx

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/coreunwind/coreunwind/internal/testenv"
)

var objdumpDotLabel = regexp.MustCompile(`(?m)^([0-9a-f]+) <\.([^>@]+)>:`)

// TestFunctionDescriptorSymbols: in a big-endian ppc64 (ELFv1) program,
// function symbols are descriptors in .opd; each one names its code. The
// reference is objdump, which labels every function's code with the
// ".name" synthetic symbol it derives from the descriptor: elfx's symbol
// at each such label is that function, at offset 0, and LookupSymbol
// gives the code's address.
func TestFunctionDescriptorSymbols(t *testing.T) {
	objdump := testenv.NeedTool(t, testenv.PPC64.Triple+"-objdump")
	dir := t.TempDir()
	exe := testenv.BuildCross(t, testenv.PPC64, dir, "prog", `
__attribute__((noinline)) int leaf(int *p) { return *p; }
int main(int argc, char **argv) { return leaf(argc > 9 ? &argc : 0); }
`, "-O1", "-static")
	o, err := Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	labels := objdumpDotLabel.FindAllStringSubmatch(run(t, "", objdump, "-d", exe), -1)
	checked := map[string]bool{}
	for _, m := range labels {
		addr, _ := strconv.ParseUint(m[1], 16, 64)
		sym, ok := o.Symbol(addr)
		if !ok || sym.Addr != addr {
			t.Errorf("code of %s at %#x: elfx's symbol %+v", m[2], addr, sym)
			continue
		}
		checked[m[2]] = true
	}
	if len(labels) < 100 || !checked["main"] || !checked["leaf"] {
		t.Fatalf("objdump labelled %d functions (main %v, leaf %v)", len(labels), checked["main"], checked["leaf"])
	}
	for _, name := range []string{"main", "leaf"} {
		sym, ok := o.LookupSymbol(name)
		got, _ := o.Symbol(sym.Addr)
		if !ok || got.Name != name {
			t.Errorf("LookupSymbol(%q) = %+v, and the symbol there is %+v", name, sym, got)
		}
	}
}
