package report

import (
	"bufio"
	"fmt"
	"path"
)

// writeAnnotations writes the text header's lines of a crash reporter's
// annotations, in the dump's order: "KEY: VALUE" for the process's, the
// module's base name first for a module's ("libfoo.so: KEY: VALUE", a
// list annotation without a key).
func writeAnnotations(w *bufio.Writer, as []Annotation) {
	if len(as) == 0 {
		return
	}
	fmt.Fprintf(w, "annotations:\n")
	for _, a := range as {
		w.WriteString("  ")
		if a.Module != nil {
			fmt.Fprintf(w, "%s: ", Printable(path.Base(*a.Module)))
		}
		if a.Key != nil {
			fmt.Fprintf(w, "%s: ", Printable(*a.Key))
		}
		fmt.Fprintf(w, "%s\n", Printable(a.Value))
	}
}
