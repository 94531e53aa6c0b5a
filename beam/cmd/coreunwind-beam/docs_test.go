package main

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/coreunwind/coreunwind/internal/exitcode"
	"github.com/coreunwind/coreunwind/internal/flagdoc"
)

// beamReference is the page that documents coreunwind-beam's flags (its
// section "## Flags"), as the messages name it and where the test reads it.
const (
	beamReference     = "docs/beam.md"
	beamReferencePath = "../../../" + beamReference
)

// TestFlagReference: the flags coreunwind-beam defines (as its -h
// prints them) and the flags docs/beam.md documents are the same.
func TestFlagReference(t *testing.T) {
	var usage bytes.Buffer
	if code := run([]string{"-h"}, io.Discard, &usage); code != exitcode.OK {
		t.Fatalf("-h: exit %d", code)
	}
	defined := flagdoc.PrintedDefaults(usage.Bytes())
	page, err := os.ReadFile(beamReferencePath)
	if err != nil {
		t.Fatal(err)
	}
	documented := flagdoc.Sections(string(page))["Flags"]
	if len(defined) < 10 || len(documented) < 10 {
		t.Fatalf("%d flags in -h, %d in %s's \"## Flags\": want all of them in each\n%s", len(defined), len(documented), beamReference, usage.Bytes())
	}
	for _, msg := range flagdoc.Compare(defined, documented, "coreunwind-beam", beamReference, "Flags") {
		t.Error(msg)
	}
}
