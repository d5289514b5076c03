package window

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Schedule is a maintenance window and the periods excluded from it.
type Schedule struct {
	Window     *Window
	Exclusions []Span
}

// ParseExclusion reads one exclusion period START/END. Dates and local
// date-times are in loc; a date-only END includes that whole day.
func ParseExclusion(s string, loc *time.Location) (Span, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Span{}, fmt.Errorf("exclusion %q: want START/END, such as 2025-12-20/2026-01-05", s)
	}
	start, _, err := parseInstant(a, loc)
	if err != nil {
		return Span{}, fmt.Errorf("exclusion %q: start: %v", s, err)
	}
	end, dateOnly, err := parseInstant(b, loc)
	if err != nil {
		return Span{}, fmt.Errorf("exclusion %q: end: %v", s, err)
	}
	if dateOnly {
		l := end.In(loc)
		end = resolve(civil{y: l.Year(), m: l.Month(), d: l.Day()}.addDays(1), loc)
	}
	if !start.Before(end) {
		return Span{}, fmt.Errorf("exclusion %q: the end is not after the start", s)
	}
	return Span{Start: start, End: end}, nil
}

// ParseExclusions reads a comma-separated list of exclusion periods.
func ParseExclusions(list string, loc *time.Location) ([]Span, error) {
	var out []Span
	for _, part := range strings.Split(list, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		sp, err := ParseExclusion(part, loc)
		if err != nil {
			return nil, err
		}
		out = append(out, sp)
	}
	return out, nil
}

// ParseTime reads an instant: RFC 3339 (2025-06-01T02:00:00Z), or a local
// date-time (2025-06-01T02:00) or date in loc.
func ParseTime(s string, loc *time.Location) (time.Time, error) {
	t, _, err := parseInstant(s, loc)
	return t, err
}

func parseInstant(s string, loc *time.Location) (time.Time, bool, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, false, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return resolve(civil{y: t.Year(), m: t.Month(), d: t.Day(), h: t.Hour(), n: t.Minute()}, loc).Add(time.Duration(t.Second()) * time.Second), false, nil
		}
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return resolve(civil{y: t.Year(), m: t.Month(), d: t.Day()}, loc), true, nil
	}
	return time.Time{}, false, fmt.Errorf("%q is not a time: want 2025-12-20, 2025-12-20T18:00 (local) or RFC 3339 (2025-12-20T18:00:00Z)", s)
}

// horizon is how far ahead Next looks for an open window.
const horizon = 5 * 366 * 24 * time.Hour

// Open reports whether t is inside an open window and, if so, the open
// span it is in (the window, cut short by an exclusion that starts in it).
func (s Schedule) Open(t time.Time) (Span, bool) {
	for _, sp := range s.spans(t, t) {
		if sp.Contains(t) {
			return sp, true
		}
	}
	return Span{}, false
}

// Next returns the first open span that ends after t: the current one
// when t is inside a window (its Start is then before t). ok is false when
// none opens within five years of t (or of the window's start date), or
// the recurrence has ended.
func (s Schedule) Next(t time.Time) (Span, bool) {
	start := t
	if a := s.Window.anchor; a != nil {
		if as := resolve(*a, s.Window.loc); as.After(start) {
			start = as
		}
	}
	// A month at a time, so that a daily window does not compute five
	// years of occurrences.
	const chunk = 31 * 24 * time.Hour
	for lo := start; lo.Before(start.Add(horizon)); lo = lo.Add(chunk) {
		for _, sp := range s.spans(lo, lo.Add(chunk)) {
			if sp.End.After(t) {
				return sp, true
			}
		}
	}
	return Span{}, false
}

// spans returns the open spans of windows that open between from (minus a
// duration) and to, with the exclusions cut out, in order.
func (s Schedule) spans(from, to time.Time) []Span {
	var out []Span
	for _, occ := range s.Window.occurrences(from, to) {
		out = append(out, subtract(occ, s.Exclusions)...)
	}
	slices.SortFunc(out, func(a, b Span) int { return a.Start.Compare(b.Start) })
	return merge(out)
}

// subtract cuts the exclusions out of sp.
func subtract(sp Span, excl []Span) []Span {
	parts := []Span{sp}
	for _, e := range excl {
		var next []Span
		for _, p := range parts {
			if !e.Start.Before(p.End) || !p.Start.Before(e.End) {
				next = append(next, p)
				continue
			}
			if p.Start.Before(e.Start) {
				next = append(next, Span{p.Start, e.Start})
			}
			if e.End.Before(p.End) {
				next = append(next, Span{e.End, p.End})
			}
		}
		parts = next
	}
	return parts
}

// merge joins overlapping or touching spans (windows longer than their
// recurrence period).
func merge(in []Span) []Span {
	var out []Span
	for _, sp := range in {
		if n := len(out); n > 0 && !sp.Start.After(out[n-1].End) {
			if sp.End.After(out[n-1].End) {
				out[n-1].End = sp.End
			}
			continue
		}
		out = append(out, sp)
	}
	return out
}

// Excluded returns the exclusion t falls in, if any.
func (s Schedule) Excluded(t time.Time) (Span, bool) {
	for _, e := range s.Exclusions {
		if e.Contains(t) {
			return e, true
		}
	}
	return Span{}, false
}

// Report says whether a schedule is open at an instant and lists the next
// windows.
type Report struct {
	Window string    `json:"window"`
	At     time.Time `json:"at"`
	Open   bool      `json:"open"`
	// Until is when the open window closes.
	Until *time.Time `json:"until,omitempty"`
	// Next are the next windows that open after At (none when the
	// recurrence has ended).
	Next []Span `json:"next"`
	loc  *time.Location
}

// Report evaluates the schedule at t and lists up to n windows opening
// after it.
func (s Schedule) Report(t time.Time, n int) Report {
	r := Report{Window: s.Window.Describe(), At: t, Next: []Span{}, loc: s.Window.loc}
	if cur, open := s.Open(t); open {
		r.Open, r.Until = true, &cur.End
	}
	for from := t; len(r.Next) < n; {
		sp, ok := s.Next(from)
		if !ok {
			break
		}
		if sp.Start.After(t) {
			r.Next = append(r.Next, sp)
		}
		from = sp.End
	}
	return r
}

// WriteText writes the report for people, in the window's zone and in UTC.
func WriteText(w io.Writer, r Report) {
	const layout = "Mon 2006-01-02 15:04 MST"
	loc := r.loc
	if loc == nil {
		loc = time.UTC
	}
	fmt.Fprintf(w, "Window: %s\n", r.Window)
	if r.Open {
		fmt.Fprintf(w, "Open at %s, until %s\n", r.At.In(loc).Format(layout), r.Until.In(loc).Format(layout))
	} else {
		fmt.Fprintf(w, "Closed at %s\n", r.At.In(loc).Format(layout))
	}
	if len(r.Next) == 0 {
		fmt.Fprintln(w, "No window opens within five years")
	}
	for _, sp := range r.Next {
		fmt.Fprintf(w, "Next: %s to %s (in %s; %s)\n", sp.Start.In(loc).Format(layout), sp.End.In(loc).Format(layout), Humanize(sp.Start.Sub(r.At)), sp.Start.UTC().Format("2006-01-02 15:04 UTC"))
	}
}

// Humanize writes a wait for people: 45m, 13h, 7d12h, 72y.
func Humanize(d time.Duration) string {
	d = d.Round(time.Minute)
	day := 24 * time.Hour
	switch {
	case d < time.Minute:
		return "less than a minute"
	case d < 2*day:
		return formatDuration(d)
	case d < 365*day:
		days, hours := int(d/day), int((d%day)/time.Hour)
		if hours == 0 {
			return fmt.Sprintf("%dd", days)
		}
		return fmt.Sprintf("%dd%dh", days, hours)
	}
	return fmt.Sprintf("%dy", int(d.Hours()/24/365.25))
}
