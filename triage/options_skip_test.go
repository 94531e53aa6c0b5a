package triage

import (
	"flag"
	"testing"
)

// TestConfigUsesResolvedSkipList: Config signs with the skip list
// Resolve compiled (the ~170 default patterns: 1.5 ms of every batch
// when compiled twice), and compiles the patterns again only when they
// changed since.
func TestConfigUsesResolvedSkipList(t *testing.T) {
	var o Options
	fs := flag.NewFlagSet("triage", flag.ContinueOnError)
	f := o.RegisterFlags(fs)
	if err := fs.Parse([]string{"--skip", "my_abort"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Resolve(); err != nil {
		t.Fatal(err)
	}
	cfg, err := o.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Signer.Skip != o.skip || !cfg.Signer.Skip.Skip("my_abort") {
		t.Errorf("Config's skip list %p, Resolve's %p", cfg.Signer.Skip, o.skip)
	}
	if n := testing.AllocsPerRun(5, func() { o.Config() }); n > 100 {
		t.Errorf("Config allocates %.0f objects: the patterns are compiled again", n)
	}
	// Patterns changed after Resolve are the ones Config signs with.
	o.SkipPatterns = []string{"other"}
	cfg, err = o.Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Signer.Skip == o.skip || !cfg.Signer.Skip.Skip("other") || cfg.Signer.Skip.Skip("my_abort") {
		t.Error("Config signs with the skip list of patterns since replaced")
	}
}
