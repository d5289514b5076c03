package runner

import (
	"sort"
	"time"

	"github.com/k0rdent/kbook/internal/runbook"
)

// startOrder is the order in which Run starts the selected runbooks, as
// indices into rbs: with more than one at a time, the longest recorded
// duration first (unknown ones count as defaultDuration), so that the run
// does not end with one long runbook running alone because it happened to
// come last; ties, and runs one at a time, keep the given order. Reports
// list results in the given order either way.
func startOrder(rbs []*runbook.Runbook, parallel int, durations map[string]time.Duration) []int {
	order := make([]int, len(rbs))
	for i := range order {
		order[i] = i
	}
	if parallel <= 1 || len(durations) == 0 {
		return order
	}
	dur := func(i int) time.Duration {
		if d, ok := durations[rbs[i].Path]; ok && d > 0 {
			return d
		}
		return defaultDuration
	}
	sort.SliceStable(order, func(a, b int) bool { return dur(order[a]) > dur(order[b]) })
	return order
}
