package fuzzseed

import (
	"errors"
	"testing"
)

// recorder is a testing.TB that records a Fatal instead of stopping.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = format
	panic(r)
}
func (r *recorder) Fatal(args ...any) { r.failed = "fatal"; panic(r) }

func files(tb testing.TB, patterns ...string) (out [][]byte, failed string) {
	r := &recorder{TB: tb}
	defer func() {
		if v := recover(); v != nil && v != r {
			panic(v)
		}
		failed = r.failed
	}()
	return Files(r, patterns...), ""
}

func TestFiles(t *testing.T) {
	tests := []struct {
		name     string
		patterns []string
		want     []string
		fails    bool
	}{
		{"in pattern then name order", []string{"testdata/b/*", "testdata/a/*"}, []string{"b1\n", "a1\n", "a2\n"}, false},
		{"a pattern that matches nothing", []string{"testdata/a/*", "testdata/none/*"}, nil, true},
		{"a bad pattern", []string{"testdata/["}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, failed := files(t, tt.patterns...)
			if (failed != "") != tt.fails {
				t.Fatalf("failed = %q, want failure %v", failed, tt.fails)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d files, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if string(got[i]) != tt.want[i] {
					t.Errorf("file %d = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestErrorNamesFile(t *testing.T) {
	var read string
	ErrorNamesFile(t, "x.yaml", []byte("a: 1\n"), func(path string) error {
		read = path
		return errors.New(path + ": bad")
	})
	if read == "" {
		t.Fatal("load was not called")
	}
}
