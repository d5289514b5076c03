package window

import (
	"fmt"
	"io"
	"time"

	"github.com/k0rdent/kbook/internal/output"
)

// Evaluate is kbook upgrade window: it parses spec and the exclusion
// periods (in the window's zone) and reports the schedule at at (RFC
// 3339 or YYYY-MM-DDTHH:MM in the window's zone; "": now) with the count
// next windows. Every error is bad input, naming its flag.
func Evaluate(spec string, exclusions []string, at string, count int, now time.Time) (Report, error) {
	w, err := Parse(spec)
	if err != nil {
		return Report{}, err
	}
	s := Schedule{Window: w}
	for _, e := range exclusions {
		sp, err := ParseExclusion(e, w.Location())
		if err != nil {
			return Report{}, fmt.Errorf("--exclude: %w", err)
		}
		s.Exclusions = append(s.Exclusions, sp)
	}
	t := now
	if at != "" {
		if t, err = ParseTime(at, w.Location()); err != nil {
			return Report{}, fmt.Errorf("--at: %w", err)
		}
	}
	if count < 1 {
		return Report{}, fmt.Errorf("--count %d: want at least 1", count)
	}
	return s.Report(t, count), nil
}

// Write writes the report as text (WriteText), json or yaml, by package
// output.
func Write(w io.Writer, format string, r Report) error {
	return output.Write(w, format, r, func(w io.Writer) error {
		WriteText(w, r)
		return nil
	})
}
