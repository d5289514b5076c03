package skeleton

import (
	"bytes"
	"errors"
	"testing"
)

func TestCreatedWrite(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    Created
		want string
	}{
		{"listed", Created{Dir: "acme", Files: []string{"Chart.yaml", "ci/ha.yaml"}, Next: "kbook template validate acme"},
			"created acme/\n  Chart.yaml\n  ci/ha.yaml\nnext: kbook template validate acme\n"},
		{"into", Created{Dir: "docs", Files: []string{"kbook.yaml", "runbooks/first.md"}, Next: "cd docs && kbook serve", Into: true},
			"created docs/kbook.yaml\ncreated docs/runbooks/first.md\nnext: cd docs && kbook serve\n"},
		{"no next", Created{Dir: "x", Files: []string{"a"}}, "created x/\n  a\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.c.Write(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", b.String(), tc.want)
			}
		})
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

// TestCreatedWriteError: the first write error is returned.
func TestCreatedWriteError(t *testing.T) {
	if err := (Created{Dir: "x", Files: []string{"a"}, Next: "n"}).Write(failWriter{}); err == nil || err.Error() != "closed" {
		t.Errorf("error %v, want closed", err)
	}
}
