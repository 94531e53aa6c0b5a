package analyze

import (
	"strings"

	"github.com/coreunwind/coreunwind/corefile"
	"github.com/coreunwind/coreunwind/report"
)

// Incomplete reports whether rep is a partial result (coreunwind's exit
// status 3): no thread could be read, some thread's walk stopped with an
// error, or the core is damaged (a note that is not what it claims to be:
// the pid, a thread, the crashing thread may be missing, and a warning
// says which).
func Incomplete(rep *report.Report) bool {
	if len(rep.Threads) == 0 {
		return true
	}
	for _, t := range rep.Threads {
		if t.Error != nil {
			return true
		}
	}
	for _, w := range rep.Warnings {
		if strings.HasPrefix(w, corefile.DamagedPrefix) {
			return true
		}
	}
	return false
}
