package upgrade

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/status"
)

// TestRequestCheckBadInput: the flag combinations kbook upgrade check
// refuses are bad input, each naming what to give instead, before any
// chart is read or cluster contacted.
func TestRequestCheckBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		name string
		r    Request
		want string
	}{
		{"no --to", Request{From: "a"}, "--to is required"},
		{"neither live nor offline", Request{To: "b"}, "give a CLUSTERDEPLOYMENT to check live, or --from CHART"},
		{"--charts offline", Request{From: "a", To: "b", Charts: []string{"c"}}, "--charts is for live checks"},
		{"--from live", Request{Deployment: "dev-1", From: "a", To: "b"}, "--from and --config are for offline checks"},
		{"--config live", Request{Deployment: "dev-1", Config: "c.yaml", To: "b"}, "--from and --config are for offline checks"},
		{"missing --charts folder", Request{Deployment: "dev-1", To: "b", Charts: []string{missing}}, "--charts " + missing},
		{"missing config", Request{From: "a", To: "b", Config: missing}, "config: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.r.Check(context.Background())
			if !findings.IsInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want bad input containing %q", err, tc.want)
			}
		})
	}
}

// TestRequestApplyBadWhen: --window, --exclude and --at are checked
// before the cluster is contacted.
func TestRequestApplyBadWhen(t *testing.T) {
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
			r := Request{Deployment: "dev-1", To: "b", Kubeconfig: filepath.Join(t.TempDir(), "none")}
			if tc.name == "no --to" {
				r.To = ""
			}
			_, err := r.Apply(context.Background(), ApplyOptions{Window: tc.window, Exclusions: tc.excl}, tc.at)
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
	var o ApplyOptions
	if err := parseWhen(&o, "next", now); err != nil || !o.AtNext {
		t.Errorf("--at next: %v, AtNext %v", err, o.AtNext)
	}
	o = ApplyOptions{Window: "sat,sun 02:00 4h Europe/Berlin"}
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
