package triagebeam

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/coreunwind/coreunwind/triage"
)

// A worker process runs many instances of analyzeFn at once (one per
// bundle it runs in parallel); they share one Analyzer per set of
// options, so that each binary is opened, mapped and indexed once per
// worker process, as in one `coreunwind triage` batch.
var analyzers = struct {
	sync.Mutex
	m map[string]*sharedAnalyzer
}{m: map[string]*sharedAnalyzer{}}

type sharedAnalyzer struct {
	an   *triage.Analyzer
	refs int
}

// acquireAnalyzer returns the process's Analyzer for opts and the
// function that releases it (the last release closes it).
func acquireAnalyzer(opts triage.Options) (*triage.Analyzer, func(), error) {
	k, err := json.Marshal(opts)
	if err != nil {
		return nil, nil, err
	}
	key := string(k)
	analyzers.Lock()
	defer analyzers.Unlock()
	s := analyzers.m[key]
	if s == nil {
		cfg, err := opts.Config()
		if err != nil {
			return nil, nil, fmt.Errorf("triage options: %w", err)
		}
		s = &sharedAnalyzer{an: triage.NewAnalyzer(cfg)}
		analyzers.m[key] = s
	}
	s.refs++
	release := func() {
		analyzers.Lock()
		defer analyzers.Unlock()
		if s.refs--; s.refs == 0 {
			s.an.Close()
			delete(analyzers.m, key)
		}
	}
	return s.an, release, nil
}
