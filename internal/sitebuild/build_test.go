package sitebuild

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/site"
)

// TestBadInput: bad options are bad input before anything is built,
// each naming the flag (package serve's TestBadInput is kbook serve's).
func TestBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"--version", Build(ctx, Options{Dir: missing, Version: "../x"}), "--version: "},
		{"--alias", Build(ctx, Options{Dir: missing, Version: "v1", Aliases: []string{"a/b"}}), "--alias: "},
		{"no project", Build(ctx, Options{Dir: missing, Version: "v1"}), "missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !findings.IsInput(tc.err) || !strings.Contains(tc.err.Error(), tc.want) {
				t.Errorf("error %v, want bad input containing %q", tc.err, tc.want)
			}
		})
	}
}

func TestVerificationLine(t *testing.T) {
	for _, tc := range []struct {
		rows []site.Verification
		want string
	}{
		{nil, "no runbooks"},
		{[]site.Verification{{Status: site.Verified}, {Status: site.Failed}, {Status: site.Verified}},
			"3 runbooks: 2 verified, 0 partially verified, 1 failed, 0 not verified"},
	} {
		if got := VerificationLine(tc.rows); got != tc.want {
			t.Errorf("VerificationLine(%v) = %q, want %q", tc.rows, got, tc.want)
		}
	}
}
