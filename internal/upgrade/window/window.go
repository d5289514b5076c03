package window

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Window is one recurring maintenance window.
type Window struct {
	rec      recurrence
	hour     int
	minute   int
	anchor   *civil // no window opens before this local date and time
	duration time.Duration
	loc      *time.Location
	spec     string
}

// civil is a local date (and time of day).
type civil struct {
	y    int
	m    time.Month
	d    int
	h, n int
}

func (c civil) date() civil { return civil{y: c.y, m: c.m, d: c.d} }

func (c civil) before(o civil) bool {
	return cmp.Or(cmp.Compare(c.y, o.y), cmp.Compare(c.m, o.m), cmp.Compare(c.d, o.d), cmp.Compare(c.h, o.h), cmp.Compare(c.n, o.n)) < 0
}

func civilOf(t time.Time) civil {
	return civil{y: t.Year(), m: t.Month(), d: t.Day(), h: t.Hour(), n: t.Minute()}
}

func (c civil) naive() time.Time { return time.Date(c.y, c.m, c.d, c.h, c.n, 0, 0, time.UTC) }

func (c civil) addDays(n int) civil {
	t := time.Date(c.y, c.m, c.d+n, 0, 0, 0, 0, time.UTC)
	return civil{y: t.Year(), m: t.Month(), d: t.Day(), h: c.h, n: c.n}
}

func (c civil) weekday() time.Weekday { return c.naive().Weekday() }

// MaxDuration bounds a window's duration.
const MaxDuration = 31 * 24 * time.Hour

// Parse reads a window specification (see the package documentation).
func Parse(spec string) (*Window, error) {
	fields := strings.Fields(spec)
	fail := func(format string, a ...any) error {
		return fmt.Errorf("window %q: %s", spec, fmt.Sprintf(format, a...))
	}
	if len(fields) < 3 || len(fields) > 4 {
		return nil, fail("want RECURRENCE START DURATION [ZONE], such as \"sat,sun 02:00 4h Europe/Berlin\"")
	}
	w := &Window{spec: spec, loc: time.UTC}
	if len(fields) == 4 {
		if fields[3] == "Local" {
			return nil, fail("zone Local depends on the machine kbook runs on: name an IANA zone such as Europe/Berlin")
		}
		loc, err := time.LoadLocation(fields[3])
		if err != nil {
			return nil, fail("zone %q is not an IANA time zone (such as Europe/Berlin or UTC)", fields[3])
		}
		w.loc = loc
	}
	rec, err := parseRecurrence(fields[0])
	if err != nil {
		return nil, fail("%v", err)
	}
	w.rec = rec
	if err := w.parseStart(fields[1]); err != nil {
		return nil, fail("%v", err)
	}
	d, err := parseDuration(fields[2])
	if err != nil {
		return nil, fail("%v", err)
	}
	w.duration = d
	if w.rec.interval > 1 && w.anchor == nil {
		return nil, fail("INTERVAL=%d needs a start date to count from: write START as YYYY-MM-DDTHH:MM", w.rec.interval)
	}
	return w, nil
}

func (w *Window) parseStart(s string) error {
	if date, clock, ok := strings.Cut(s, "T"); ok {
		t, err := time.Parse("2006-01-02", date)
		if err != nil {
			return fmt.Errorf("start %q: want HH:MM or YYYY-MM-DDTHH:MM", s)
		}
		h, m, err := parseClock(clock)
		if err != nil {
			return fmt.Errorf("start %q: %v", s, err)
		}
		w.anchor = &civil{y: t.Year(), m: t.Month(), d: t.Day(), h: h, n: m}
		w.hour, w.minute = h, m
		return nil
	}
	h, m, err := parseClock(s)
	if err != nil {
		return fmt.Errorf("start %q: %v", s, err)
	}
	w.hour, w.minute = h, m
	return nil
}

func parseClock(s string) (int, int, error) {
	hs, ms, ok := strings.Cut(s, ":")
	h, err1 := strconv.Atoi(hs)
	m, err2 := strconv.Atoi(ms)
	if !ok || err1 != nil || err2 != nil || len(ms) != 2 || h < 0 || h > 23 || m < 0 || m > 59 {
		return 0, 0, errors.New("want a time of day HH:MM from 00:00 to 23:59")
	}
	return h, m, nil
}

// parseDuration accepts Go durations and a leading number of days: 1d12h.
func parseDuration(s string) (time.Duration, error) {
	var days time.Duration
	rest := s
	if ds, after, ok := strings.Cut(s, "d"); ok {
		n, err := strconv.Atoi(ds)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("duration %q: want a duration such as 4h, 90m or 1d12h", s)
		}
		days, rest = time.Duration(n)*24*time.Hour, after
	}
	var d time.Duration
	if rest != "" {
		var err error
		if d, err = time.ParseDuration(rest); err != nil {
			return 0, fmt.Errorf("duration %q: want a duration such as 4h, 90m or 1d12h", s)
		}
	}
	d += days
	switch {
	case d < time.Minute:
		return 0, fmt.Errorf("duration %q: a window lasts at least one minute", s)
	case d > MaxDuration:
		return 0, fmt.Errorf("duration %q: a window lasts at most 31 days", s)
	}
	return d, nil
}

// Duration is how long each window lasts.
func (w *Window) Duration() time.Duration { return w.duration }

// Location is the window's time zone.
func (w *Window) Location() *time.Location { return w.loc }

// String is the specification as written.
func (w *Window) String() string { return w.spec }

// Describe says in words when the window opens: "Saturday and Sunday at
// 02:00 Europe/Berlin for 4h".
func (w *Window) Describe() string {
	s := fmt.Sprintf("%s at %02d:%02d %s for %s", w.rec.describe(), w.hour, w.minute, w.loc, formatDuration(w.duration))
	if w.anchor != nil {
		s += fmt.Sprintf(", from %04d-%02d-%02d", w.anchor.y, w.anchor.m, w.anchor.d)
	}
	return s
}

func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Span is a half-open interval of time [Start, End).
type Span struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// Contains reports whether t is in the span.
func (s Span) Contains(t time.Time) bool { return !t.Before(s.Start) && t.Before(s.End) }

// occurrences returns the windows that open on local dates from the date
// of from minus the window's duration up to and including the date of to,
// in order.
func (w *Window) occurrences(from, to time.Time) []Span {
	first := civilOf(from.In(w.loc).Add(-w.duration)).date().addDays(-1)
	last := civilOf(to.In(w.loc)).date()
	var out []Span
	for d := first; !last.before(d); d = d.addDays(1) {
		if w.anchor != nil && d.before(w.anchor.date()) {
			continue
		}
		if !w.rec.matches(d, w.anchor) {
			continue
		}
		start := resolve(civil{y: d.y, m: d.m, d: d.d, h: w.hour, n: w.minute}, w.loc)
		if w.rec.until != nil && civilOf(start.In(w.loc)).date().after(*w.rec.until) {
			break
		}
		out = append(out, Span{Start: start, End: start.Add(w.duration)})
	}
	return out
}

func (c civil) after(o civil) bool { return o.before(c) }

// resolve returns the instant of a local wall-clock time in loc: the
// earlier of two when the clocks went back over it, the end of the gap when
// they went forward over it.
func resolve(c civil, loc *time.Location) time.Time {
	naive := c.naive()
	var offsets []int
	for _, probe := range []time.Duration{-26 * time.Hour, 0, 26 * time.Hour} {
		_, off := naive.Add(probe).In(loc).Zone()
		if !slices.Contains(offsets, off) {
			offsets = append(offsets, off)
		}
	}
	var found []time.Time
	for _, off := range offsets {
		t := naive.Add(-time.Duration(off) * time.Second)
		if wall(t, loc).Equal(naive) {
			found = append(found, t)
		}
	}
	if len(found) > 0 {
		return slices.MinFunc(found, func(a, b time.Time) int { return a.Compare(b) })
	}
	// A gap: the first instant whose wall clock is at or after c.
	minOff, maxOff := slices.Min(offsets), slices.Max(offsets)
	lo := naive.Add(-time.Duration(maxOff) * time.Second)
	hi := naive.Add(-time.Duration(minOff) * time.Second)
	for hi.Sub(lo) > time.Second {
		mid := lo.Add(hi.Sub(lo) / 2).Truncate(time.Second)
		if wall(mid, loc).Before(naive) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// wall is the local wall-clock time of t in loc, as a UTC time.
func wall(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), 0, time.UTC)
}
