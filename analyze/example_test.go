package analyze_test

import (
	"fmt"
	"log"

	"github.com/coreunwind/coreunwind/analyze"
)

// Walking a thread of a core with a cursor, as with libunwind's
// unw_step/unw_get_proc_name: the shipped core of a static program that
// stored through NULL three calls deep.
func ExampleSession_Cursor() {
	s, err := analyze.Open("../testdata/cores/segv-static/core",
		analyze.Options{Executable: "../testdata/cores/segv-static/segv"})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	cur, err := s.Cursor(s.Core.CrashedTID, 0)
	if err != nil {
		log.Fatal(err)
	}
	for {
		name, off, _ := cur.ProcName()
		fmt.Printf("%s+%#x (%v)\n", name, off, cur.Frame().Trust)
		if more, err := cur.Step(); !more {
			if err != nil {
				fmt.Println("stopped:", err)
			}
			break
		}
	}
	// Output:
	// write_record+0x0 (context)
	// save+0x8 (cfi)
	// main+0x20 (cfi)
	// __libc_start_call_main+0x64 (cfi)
	// __libc_start_main_impl+0x8a0 (cfi)
	// _start+0x21 (cfi)
}
