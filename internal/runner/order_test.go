package runner

import (
	"fmt"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/runbook"
)

func TestStartOrder(t *testing.T) {
	rbs := []*runbook.Runbook{{Path: "a.md"}, {Path: "b.md"}, {Path: "c.md"}, {Path: "d.md"}}
	s := time.Second
	tests := []struct {
		name      string
		parallel  int
		durations map[string]time.Duration
		want      string
	}{
		{"one at a time keeps the order", 1, map[string]time.Duration{"d.md": 60 * s}, "[0 1 2 3]"},
		{"no timings keep the order", 2, nil, "[0 1 2 3]"},
		{"longest first", 2, map[string]time.Duration{"a.md": 1 * s, "b.md": 30 * s, "c.md": 2 * s, "d.md": 60 * s}, "[3 1 2 0]"},
		{"unknown counts as 10s, ties keep the order", 3, map[string]time.Duration{"a.md": 1 * s, "d.md": 20 * s}, "[3 1 2 0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fmt.Sprint(startOrder(rbs, tc.parallel, tc.durations)); got != tc.want {
				t.Errorf("order = %s, want %s", got, tc.want)
			}
		})
	}
}
