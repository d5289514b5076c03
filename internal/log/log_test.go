package log

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// recorder is a Logger that keeps its lines.
type recorder struct{ got []string }

func (r *recorder) Infof(format string, args ...any) {
	r.got = append(r.got, fmt.Sprintf(format, args...))
}
func (r *recorder) lines() []string { return r.got }

// warnRecorder is a Warner that keeps its lines.
type warnRecorder struct{ recorder }

func (r *warnRecorder) Warn(msg string) { r.got = append(r.got, "W "+msg) }

func TestWarnf(t *testing.T) {
	tests := []struct {
		name   string
		logger interface {
			Logger
			lines() []string
		}
		want []string
	}{
		{"Infof only", &recorder{}, []string{"kbook: warning: disk 90% full"}},
		{"Warner", &warnRecorder{}, []string{"W disk 90% full"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Warnf(tt.logger, "disk %d%% full", 90)
			if got := tt.logger.lines(); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	Warnf(nil, "dropped")              // a nil Logger drops it, no panic
	Warnf(NoopLogger{}, "dropped too") // and so does NoopLogger
}

func TestOr(t *testing.T) {
	if _, ok := Or(nil).(NoopLogger); !ok {
		t.Errorf("Or(nil) = %T, want NoopLogger", Or(nil))
	}
	r := &recorder{}
	Or(r).Infof("starting %s", "etcd")
	if !slices.Equal(r.got, []string{"starting etcd"}) {
		t.Errorf("Or(l) did not return l: l got %q", r.got)
	}
}

func TestTo(t *testing.T) {
	var b strings.Builder
	l := To{&b}
	l.Infof("started %s", "etcd")
	Warnf(l, "disk %d%% full", 90)
	if want := "started etcd\nkbook: warning: disk 90% full\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestIOStreamsOrDiscard: a nil stream discards, a set one is kept.
func TestIOStreamsOrDiscard(t *testing.T) {
	var b strings.Builder
	s := IOStreams{Out: &b}.OrDiscard()
	if s.Out != &b || s.ErrOut != io.Discard {
		t.Errorf("OrDiscard: %#v, want Out kept and ErrOut io.Discard", s)
	}
}
