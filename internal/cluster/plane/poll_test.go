package plane

import (
	"context"
	"errors"
	"testing"
)

// errNotYet marks a try that is not done yet.
var errNotYet = errors.New("not yet")

func TestPoll(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		results []error // per try: nil done, errNotYet not done, else failed
		cancel  bool    // cancel ctx once the results run out
		tries   int
		wantErr string
	}{
		{name: "done at once", results: []error{nil}, tries: 1},
		{name: "done after retries", results: []error{errNotYet, errNotYet, nil}, tries: 3},
		{name: "error returns at once", results: []error{errNotYet, boom, nil}, tries: 2, wantErr: "boom"},
		{name: "ctx ends: the last reason", results: []error{errNotYet}, cancel: true, tries: 1, wantErr: "not ready: reason 1 (context canceled)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tries := 0
			err := poll(ctx, func() (bool, string, error) {
				if tries >= len(tc.results) {
					t.Fatalf("try %d after the last result", tries+1)
				}
				r := tc.results[tries]
				tries++
				if tc.cancel && tries == len(tc.results) {
					cancel()
				}
				switch r {
				case nil:
					return true, "", nil
				case errNotYet:
					return false, "reason 1", nil
				}
				return false, "", r
			})
			if tries != tc.tries {
				t.Errorf("tries = %d, want %d", tries, tc.tries)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("err = %v, want nil", err)
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}
