package plural

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "runbook", "0 runbooks"},
		{1, "runbook", "1 runbook"},
		{2, "runbook", "2 runbooks"},
		{1, "CRD", "1 CRD"},
		{3, "CRD", "3 CRDs"},
		{2, "directory", "2 directories"},
		{2, "key", "2 keys"},
		{2, "process", "2 processes"},
		{2, "match", "2 matches"},
		{1, "page", "1 page"},
	} {
		if got := Count(tc.n, tc.noun); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
}
