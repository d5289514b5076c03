package upgrade

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/status"
)

// TestCheckBadInput: the flag combinations kbook upgrade check
// refuses are bad input, each naming what to give instead, before any
// chart is read or cluster contacted.
func TestCheckBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"no --to", Options{From: "a"}, "--to is required"},
		{"neither live nor offline", Options{To: "b"}, "give a CLUSTERDEPLOYMENT to check live, or --from CHART"},
		{"--charts offline", Options{From: "a", To: "b", Charts: []string{"c"}}, "--charts is for live checks"},
		{"--from live", Options{Deployment: "dev-1", From: "a", To: "b"}, "--from and --config are for offline checks"},
		{"--config live", Options{Deployment: "dev-1", Config: "c.yaml", To: "b"}, "--from and --config are for offline checks"},
		{"missing --charts folder", Options{Deployment: "dev-1", To: "b", Charts: []string{missing}}, "--charts " + missing},
		{"missing config", Options{From: "a", To: "b", Config: missing}, "config: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Check(context.Background(), tc.o)
			if !findings.IsInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want bad input containing %q", err, tc.want)
			}
		})
	}
}

// TestApplyBadWhen: --window, --exclude and --at are checked
// before the cluster is contacted.
func TestApplyBadWhen(t *testing.T) {
	for _, tc := range []struct {
		name   string
		window string
		excl   []string
		at     string
		want   string
	}{
		{"no --to", "", nil, "", "--to is required"},
		{"window", "someday 02:00 4h", nil, "", "--window: "},
		{"exclusion", "", []string{"2025-12-20"}, "", "--exclude: "},
		{"at", "", nil, "tomorrow", "--at: "},
		{"at in the past", "", nil, "2001-01-01T00:00:00Z", "--at 2001-01-01T00:00:00Z is in the past"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Deployment: "dev-1", To: "b", Kubeconfig: filepath.Join(t.TempDir(), "none"), Window: tc.window, Exclusions: tc.excl, At: tc.at}
			if tc.name == "no --to" {
				o.To = ""
			}
			_, err := Apply(context.Background(), o)
			if !findings.IsInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want bad input containing %q", err, tc.want)
			}
		})
	}
}

// TestParseWhen: --at next waits for the window, a time in the window's
// zone is read there.
func TestParseWhen(t *testing.T) {
	now := time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC)
	var o Plan
	if err := parseWhen(&o, "next", now); err != nil || !o.AtNext {
		t.Errorf("--at next: %v, AtNext %v", err, o.AtNext)
	}
	o = Plan{Window: "sat,sun 02:00 4h Europe/Berlin"}
	if err := parseWhen(&o, "2025-11-08T02:30", now); err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2025, 11, 8, 1, 30, 0, 0, time.UTC); !o.At.Equal(want) {
		t.Errorf("--at in Europe/Berlin: %s, want %s", o.At.UTC(), want)
	}
}

// TestLiveError: how a live read's errors map to kbook's exit codes.
func TestLiveError(t *testing.T) {
	refusal := &Refusal{Reason: "outside the window"}
	for _, tc := range []struct {
		name      string
		err       error
		wantInput bool
		wantIs    error
		wantText  string
	}{
		{"refusal", refusal, false, refusal, "outside the window"},
		{"interrupted", fmt.Errorf("read: %w", context.Canceled), false, ErrInterrupted, "interrupted"},
		{"bad target", fmt.Errorf("%w: template x is not valid", ErrBadTarget), true, nil, "template x is not valid"},
		{"not found", fmt.Errorf("ClusterDeployment dev-1: %w", status.ErrNotFound), true, nil, "ClusterDeployment dev-1: " + status.ErrNotFound.Error()},
		{"other", errors.New("connection refused"), true, nil, "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := liveError(tc.err)
			if findings.IsInput(err) != tc.wantInput || tc.wantIs != nil && !errors.Is(err, tc.wantIs) || err.Error() != tc.wantText {
				t.Errorf("liveError(%v) = %v (input %v)", tc.err, err, findings.IsInput(err))
			}
		})
	}
}

// TestCheckFindings: an offline check's findings are its check's, in
// findings' vocabulary (what kbook upgrade check -o writes); bad input
// stays bad input.
func TestCheckFindings(t *testing.T) {
	for _, tc := range []struct {
		name   string
		o      Options
		errors []string
	}{
		{"patch", Options{From: charts("base"), To: charts("patch")}, nil},
		{"downgrade", Options{From: charts("base"), To: charts("downgrade")}, []string{ruleK8sDowngrade, ruleSkew}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Check(context.Background(), tc.o)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range rep.Findings {
				if f.Severity == findings.Error {
					got = append(got, f.Rule)
				}
			}
			slices.Sort(got)
			if want := slices.Sorted(slices.Values(tc.errors)); !slices.Equal(got, want) {
				t.Errorf("errors %q, want %q", got, want)
			}
		})
	}
	if _, err := Check(context.Background(), Options{From: charts("base")}); !findings.IsInput(err) {
		t.Errorf("no --to: error %v, want bad input", err)
	}
}

// TestWriteApplyNothing: an apply that stopped before it had a result
// writes nothing, in either format.
func TestWriteApplyNothing(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		var b strings.Builder
		if err := WriteApply(&b, format, nil, errors.New("stopped")); err != nil || b.Len() > 0 {
			t.Errorf("-o %s: wrote %q, error %v; want nothing", format, b.String(), err)
		}
	}
}

// TestOpensProcs: a live check or apply opens the registry that
// holds the charts it pulls once, and closes it before it returns, even
// when the cluster does not answer; an offline check opens none.
func TestOpensProcs(t *testing.T) {
	kubeconfig := filepath.Join("testdata", "live", "unreachable-kubeconfig.yaml")
	root := t.TempDir()
	var opened, closed int
	open := proc.Opener(func(l log.Logger) (*proc.Registry, func()) {
		opened++
		reg, closeReg := proc.Own(root, l)
		return reg, func() { closed++; closeReg() }
	})
	ctx := context.Background()
	live := Options{Deployment: "dev-1", To: "b", Kubeconfig: kubeconfig, OpenProcs: open}
	if _, err := Check(ctx, live); err == nil {
		t.Error("a live check against a cluster that does not answer passed")
	}
	if opened != 1 || closed != 1 {
		t.Errorf("live check: registry opened %d times, closed %d, want once each", opened, closed)
	}
	if _, err := Apply(ctx, live); err == nil {
		t.Error("an apply against a cluster that does not answer passed")
	}
	if opened != 2 || closed != 2 {
		t.Errorf("apply: registry opened %d times, closed %d in all, want twice each", opened, closed)
	}
	offline := Options{From: charts("base"), To: charts("patch"), OpenProcs: open}
	if _, err := Check(ctx, offline); err != nil || opened != 2 {
		t.Errorf("offline check: error %v, registry opened %d times in all, want no new one", err, opened)
	}
}
