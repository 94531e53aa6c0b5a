package triagebeam

import "github.com/apache/beam/sdks/v2/go/pkg/beam"

// Totals are the batch's counts as the job's counters report them.
type Totals struct {
	Known                            bool // the summary was made, and the runner returned the counters
	Total, Analyzed, Failed, Partial int64
}

// ReadTotals reads the counters the summary stage set.
func ReadTotals(res beam.PipelineResult) Totals {
	var t Totals
	if res == nil {
		return t
	}
	for _, c := range res.Metrics().AllMetrics().Counters() {
		if c.Key.Namespace != "coreunwind" {
			continue
		}
		switch c.Key.Name {
		case "summaries":
			t.Known = c.Result() > 0
		case "cores_total":
			t.Total += c.Result()
		case "cores_analyzed":
			t.Analyzed += c.Result()
		case "cores_failed":
			t.Failed += c.Result()
		case "cores_partial":
			t.Partial += c.Result()
		}
	}
	return t
}
