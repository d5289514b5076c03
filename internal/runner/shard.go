package runner

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/runbook"
)

// Shard selects part K (1-based) of N of the runbooks.
type Shard struct{ K, N int }

// ParseShard parses "K/N".
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, err1 := strconv.Atoi(k)
	ni, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || ni < 1 || ki < 1 || ki > ni {
		return Shard{}, fmt.Errorf("--shard %q: want K/N with 1 <= K <= N, such as 2/4", s)
	}
	return Shard{ki, ni}, nil
}

// defaultDuration stands in for runbooks with no recorded duration.
const defaultDuration = 10 * time.Second

// Select returns the runbooks of shard K, balanced by the given durations
// (longest first, each to the least loaded shard). The split depends only
// on the runbook paths and the durations, so every shard computes the same
// partition when it is given the same timings.
func (s Shard) Select(rbs []*runbook.Runbook, durations map[string]time.Duration) []*runbook.Runbook {
	if s.N <= 1 {
		return rbs
	}
	order := append([]*runbook.Runbook(nil), rbs...)
	dur := func(rb *runbook.Runbook) time.Duration {
		if d, ok := durations[rb.Path]; ok && d > 0 {
			return d
		}
		return defaultDuration
	}
	sort.SliceStable(order, func(i, j int) bool {
		di, dj := dur(order[i]), dur(order[j])
		if di != dj {
			return di > dj
		}
		return order[i].Path < order[j].Path
	})
	load := make([]time.Duration, s.N)
	mine := map[*runbook.Runbook]bool{}
	for _, rb := range order {
		best := 0
		for i := 1; i < s.N; i++ {
			if load[i] < load[best] {
				best = i
			}
		}
		load[best] += dur(rb)
		if best == s.K-1 {
			mine[rb] = true
		}
	}
	var out []*runbook.Runbook
	for _, rb := range rbs {
		if mine[rb] {
			out = append(out, rb)
		}
	}
	return out
}
