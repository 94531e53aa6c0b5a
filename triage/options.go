package triage

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/coreunwind/coreunwind/analyze"
	"github.com/coreunwind/coreunwind/elfx"
	"github.com/coreunwind/coreunwind/internal/regfile"
)

// Options are a batch's settings as plain values: what `coreunwind
// triage` and the Beam pipeline (cmd coreunwind-beam) read from their
// command lines, and what the pipeline sends to its workers, each of
// which builds its Config from them. Both commands register the same
// flags (RegisterFlags), so a batch means the same on either.
type Options struct {
	Binaries   []string `json:"binaries"`
	Sysroot    string   `json:"sysroot"`
	SearchPath []string `json:"search_path"`
	DebugDirs  []string `json:"debug_dirs"`
	// NoDefaultDebugDirs leaves /usr/lib/debug out of the debug dirs.
	NoDefaultDebugDirs bool `json:"no_default_debug_dirs"`
	// Symbols are Breakpad symbol stores (analyze.Options.Symbols).
	Symbols    []string `json:"symbols"`
	MaxFrames  int      `json:"max_frames"`
	AllThreads bool     `json:"all_threads"`
	// Depth is the meaningful frames per signature.
	Depth int `json:"depth"`
	// SkipPatterns is the skip list in effect (DefaultPatterns, or the
	// --skip-frames file, plus --skip).
	SkipPatterns  []string `json:"skip_patterns"`
	MaxListed     int      `json:"max_listed"`
	BucketPartial bool     `json:"bucket_partial"`
	// Rules is the text of the --rules file ("" for none): plain text
	// travels to a distributed runner's workers, each parses it.
	Rules string `json:"rules"`
	// CacheDir is the symbol cache's directory ("": the default);
	// NoCache turns it off.
	CacheDir string `json:"cache_dir"`
	NoCache  bool   `json:"no_cache"`

	// skip is SkipPatterns compiled by Resolve, while they are still
	// skipOf: Config uses it rather than compile the ~170 default
	// patterns a second time (1.5 ms of every batch).
	skip   *SkipList
	skipOf []string
}

// FlagSet is Options being read from a command line.
type FlagSet struct {
	opts      *Options
	skips     []string
	skipFile  string
	rulesFile string
	// PrintSkip is --print-skip: print the skip list and exit.
	PrintSkip bool
}

// RegisterFlags adds triage's analysis and bucketing flags to fs, read
// into o; Resolve finishes o once fs is parsed. The output flags
// (--format, -o) and the runner's (-j, --runner) are the commands' own.
func (o *Options) RegisterFlags(fs *flag.FlagSet) *FlagSet {
	f := &FlagSet{opts: o}
	appendTo := func(l *[]string) func(string) error {
		return func(v string) error { *l = append(*l, v); return nil }
	}
	fs.IntVar(&o.Depth, "frames", DefaultDepth, "meaningful frames per signature")
	fs.Func("skip", "also skip frames whose normalized name matches `REGEX` (repeatable; +REGEX: a prefix frame)", appendTo(&f.skips))
	fs.StringVar(&f.skipFile, "skip-frames", "", "read the skip list from `FILE` (replaces the default; a line @default includes it)")
	fs.StringVar(&f.rulesFile, "rules", "", "signature rules from `FILE`: frame rules and fingerprints (docs/triage.md)")
	fs.BoolVar(&f.PrintSkip, "print-skip", false, "print the skip list in effect and exit")
	fs.Func("binaries", "look for executables and libraries (by build ID) under `DIR` (repeatable)", appendTo(&o.Binaries))
	fs.StringVar(&o.Sysroot, "sysroot", "", "look for the cores' files under `DIR`")
	fs.Func("search-path", "also look for files by name in `DIR` (repeatable)", appendTo(&o.SearchPath))
	fs.Func("debug-dir", "also look for separate debug files under `DIR` (repeatable; before /usr/lib/debug)", appendTo(&o.DebugDirs))
	fs.BoolVar(&o.NoDefaultDebugDirs, "no-default-debug-dirs", false, "do not look for separate debug files under /usr/lib/debug")
	fs.Func("symbols", "Breakpad symbol store `DIR` (NAME/ID/NAME.sym): names, lines and CFI for modules without their binary (repeatable)", appendTo(&o.Symbols))
	fs.BoolVar(&o.AllThreads, "all-threads", false, "unwind every thread (jsonl reports show them), not only the crashing one")
	fs.IntVar(&o.MaxFrames, "max-frames", 256, "frames per thread")
	fs.IntVar(&o.MaxListed, "max-cores-listed", DefaultMaxListed, "core names listed per bucket in JSON")
	fs.BoolVar(&o.BucketPartial, "bucket-partial", false, "let partial cores (truncated inside the crashing thread's stack) form and join buckets")
	return f
}

// Resolve checks the parsed flags and builds the skip list in effect;
// its errors are the user's (a usage error).
func (f *FlagSet) Resolve() error {
	o := f.opts
	switch {
	case o.Depth < 1:
		return fmt.Errorf("--frames %d: want at least 1", o.Depth)
	case o.MaxFrames < 1:
		return fmt.Errorf("--max-frames %d: want at least 1", o.MaxFrames)
	}
	patterns := DefaultPatterns()
	if f.skipFile != "" {
		var err error
		if patterns, err = ReadSkipFile(f.skipFile); err != nil {
			return fmt.Errorf("--skip-frames: %w", err)
		}
	}
	o.SkipPatterns = append(append([]string(nil), patterns...), f.skips...)
	skip, err := NewSkipList(o.SkipPatterns)
	if err != nil {
		return err
	}
	o.skip, o.skipOf = skip, o.SkipPatterns
	if f.rulesFile != "" {
		text, err := readRulesFile(f.rulesFile)
		if err != nil {
			return fmt.Errorf("--rules: %w", err)
		}
		o.Rules = text
	}
	return nil
}

// readRulesFile reads and checks a rules file, returning its text.
func readRulesFile(path string) (string, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	text, err := io.ReadAll(io.LimitReader(f, maxRulesSize+1))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if _, err := ParseRules(bytes.NewReader(text)); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return string(text), nil
}

// signer builds the Signer of a batch run with o.
func (o *Options) signer() (Signer, error) {
	skip := o.skip
	var err error
	if skip == nil || !slices.Equal(o.skipOf, o.SkipPatterns) {
		if skip, err = NewSkipList(o.SkipPatterns); err != nil {
			return Signer{}, err
		}
	}
	s := Signer{Skip: skip, Depth: o.Depth}
	if o.Rules != "" {
		if s.Rules, err = ParseRules(strings.NewReader(o.Rules)); err != nil {
			return Signer{}, fmt.Errorf("rules: %w", err)
		}
	}
	return s, nil
}

// Config builds the Config of a batch run with o. The caller may add
// what plain values cannot carry (a debuginfod client, a progress
// callback) and closes cfg.Analyze.SymbolCache's owner as usual.
func (o *Options) Config() (Config, error) {
	signer, err := o.signer()
	if err != nil {
		return Config{}, err
	}
	cfg := Config{
		Analyze: analyze.Options{Sysroot: o.Sysroot, SearchPath: o.SearchPath, DebugDirs: o.DebugDirs,
			NoDefaultDebugDirs: o.NoDefaultDebugDirs, MaxFrames: o.MaxFrames, Symbols: o.Symbols},
		Binaries:   o.Binaries,
		AllThreads: o.AllThreads,
		Signer:     signer,
	}
	if !o.NoCache {
		cfg.Analyze.SymbolCache = elfx.NewSymbolCache(o.CacheDir, 0)
	}
	return cfg, nil
}

// NewCollector returns an empty collector for a batch run with o.
func (o *Options) NewCollector() *Collector {
	c := NewCollector(o.MaxListed)
	c.BucketPartial = o.BucketPartial
	c.Rules = o.RulesDigest()
	return c
}

// RulesDigest is the digest of o's rules ("" for none), what a
// Collector's Rules says.
func (o *Options) RulesDigest() string {
	if o.Rules == "" {
		return ""
	}
	rules, err := ParseRules(strings.NewReader(o.Rules))
	if err != nil {
		return ""
	}
	return rules.Digest()
}
