package window

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Frequencies of a recurrence.
const (
	daily   = "DAILY"
	weekly  = "WEEKLY"
	monthly = "MONTHLY"
)

// recurrence is which local dates a window opens on.
type recurrence struct {
	freq     string
	interval int
	days     []time.Weekday // WEEKLY, and MONTHLY BYDAY without ordinal
	nthDays  []nthDay       // MONTHLY BYDAY=1MO,-1FR
	monthDay []int          // MONTHLY BYMONTHDAY=1,15,-1
	until    *civil         // last date a window may open on
}

type nthDay struct {
	n   int // 1..5 or -1..-5
	day time.Weekday
}

var dayNames = map[string]time.Weekday{
	"mon": time.Monday, "tue": time.Tuesday, "wed": time.Wednesday, "thu": time.Thursday,
	"fri": time.Friday, "sat": time.Saturday, "sun": time.Sunday,
	"monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday, "thursday": time.Thursday,
	"friday": time.Friday, "saturday": time.Saturday, "sunday": time.Sunday,
}

var rruleDays = map[string]time.Weekday{
	"MO": time.Monday, "TU": time.Tuesday, "WE": time.Wednesday, "TH": time.Thursday,
	"FR": time.Friday, "SA": time.Saturday, "SU": time.Sunday,
}

func parseRecurrence(s string) (recurrence, error) {
	if strings.Contains(s, "=") {
		return parseRRule(strings.TrimPrefix(s, "RRULE:"))
	}
	if strings.EqualFold(s, "daily") {
		return recurrence{freq: daily, interval: 1}, nil
	}
	r := recurrence{freq: weekly, interval: 1}
	for _, part := range strings.Split(strings.ToLower(s), ",") {
		from, to, isRange := strings.Cut(part, "-")
		a, ok := dayNames[from]
		if !ok {
			return r, fmt.Errorf("days %q: %q is not a day (mon, tue, ..., sun) and %q is not daily nor an RRULE (FREQ=WEEKLY;BYDAY=SA)", s, from, s)
		}
		if !isRange {
			r.addDay(a)
			continue
		}
		b, ok := dayNames[to]
		if !ok {
			return r, fmt.Errorf("days %q: %q is not a day (mon, tue, ..., sun)", s, to)
		}
		for d := a; ; d = (d + 1) % 7 {
			r.addDay(d)
			if d == b {
				break
			}
		}
	}
	return r, nil
}

func (r *recurrence) addDay(d time.Weekday) {
	if !slices.Contains(r.days, d) {
		r.days = append(r.days, d)
	}
}

func parseRRule(s string) (recurrence, error) {
	r := recurrence{interval: 1}
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ";") {
		key, val, ok := strings.Cut(part, "=")
		key = strings.ToUpper(key)
		if !ok || val == "" {
			return r, fmt.Errorf("RRULE %q: part %q is not NAME=VALUE", s, part)
		}
		if seen[key] {
			return r, fmt.Errorf("RRULE %q: %s given twice", s, key)
		}
		seen[key] = true
		switch key {
		case "FREQ":
			switch v := strings.ToUpper(val); v {
			case daily, weekly, monthly:
				r.freq = v
			default:
				return r, fmt.Errorf("RRULE %q: FREQ=%s: kbook supports DAILY, WEEKLY and MONTHLY", s, val)
			}
		case "INTERVAL":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				return r, fmt.Errorf("RRULE %q: INTERVAL=%s: want a positive number", s, val)
			}
			r.interval = n
		case "BYDAY":
			for _, d := range strings.Split(strings.ToUpper(val), ",") {
				if len(d) < 2 {
					return r, fmt.Errorf("RRULE %q: BYDAY %q: want MO, TU, ..., SU, with an ordinal for MONTHLY (1MO, -1FR)", s, d)
				}
				wd, ok := rruleDays[d[len(d)-2:]]
				if !ok {
					return r, fmt.Errorf("RRULE %q: BYDAY %q: want MO, TU, ..., SU, with an ordinal for MONTHLY (1MO, -1FR)", s, d)
				}
				if ord := d[:len(d)-2]; ord != "" {
					n, err := strconv.Atoi(ord)
					if err != nil || n == 0 || n > 5 || n < -5 {
						return r, fmt.Errorf("RRULE %q: BYDAY %q: the ordinal must be 1 to 5 or -1 to -5", s, d)
					}
					r.nthDays = append(r.nthDays, nthDay{n, wd})
					continue
				}
				r.addDay(wd)
			}
		case "BYMONTHDAY":
			for _, d := range strings.Split(val, ",") {
				n, err := strconv.Atoi(d)
				if err != nil || n == 0 || n > 31 || n < -31 {
					return r, fmt.Errorf("RRULE %q: BYMONTHDAY %q: want 1 to 31 or -1 to -31", s, d)
				}
				r.monthDay = append(r.monthDay, n)
			}
		case "UNTIL":
			t, err := parseUntil(val)
			if err != nil {
				return r, fmt.Errorf("RRULE %q: UNTIL=%s: want a date YYYYMMDD", s, val)
			}
			r.until = &t
		default:
			return r, fmt.Errorf("RRULE %q: %s is not supported (kbook reads FREQ, INTERVAL, BYDAY, BYMONTHDAY and UNTIL)", s, key)
		}
	}
	switch {
	case r.freq == "":
		return r, fmt.Errorf("RRULE %q: FREQ is required", s)
	case r.freq == daily && (len(r.days) > 0 || len(r.nthDays) > 0 || len(r.monthDay) > 0):
		return r, fmt.Errorf("RRULE %q: FREQ=DAILY takes no BYDAY or BYMONTHDAY", s)
	case r.freq == weekly && len(r.nthDays) > 0:
		return r, fmt.Errorf("RRULE %q: ordinals in BYDAY (1MO) need FREQ=MONTHLY", s)
	case r.freq == weekly && len(r.monthDay) > 0:
		return r, fmt.Errorf("RRULE %q: BYMONTHDAY needs FREQ=MONTHLY", s)
	case r.freq == weekly && len(r.days) == 0:
		return r, fmt.Errorf("RRULE %q: FREQ=WEEKLY needs BYDAY (which days)", s)
	case r.freq == monthly && len(r.days) == 0 && len(r.nthDays) == 0 && len(r.monthDay) == 0:
		return r, fmt.Errorf("RRULE %q: FREQ=MONTHLY needs BYDAY or BYMONTHDAY (which days)", s)
	}
	return r, nil
}

func parseUntil(s string) (civil, error) {
	for _, layout := range []string{"20060102T150405Z", "20060102T150405", "20060102"} {
		if t, err := time.Parse(layout, s); err == nil {
			return civil{y: t.Year(), m: t.Month(), d: t.Day()}, nil
		}
	}
	return civil{}, fmt.Errorf("bad UNTIL")
}

// matches reports whether a window opens on local date d.
func (r recurrence) matches(d civil, anchor *civil) bool {
	switch r.freq {
	case daily:
		return r.interval == 1 || daysBetween(*anchor, d)%r.interval == 0
	case weekly:
		if !slices.Contains(r.days, d.weekday()) {
			return false
		}
		return r.interval == 1 || weeksBetween(*anchor, d)%r.interval == 0
	case monthly:
		if r.interval > 1 {
			months := (d.y-anchor.y)*12 + int(d.m) - int(anchor.m)
			if months%r.interval != 0 {
				return false
			}
		}
		return r.matchesMonthly(d)
	}
	return false
}

func (r recurrence) matchesMonthly(d civil) bool {
	last := daysIn(d.y, d.m)
	for _, md := range r.monthDay {
		if md == d.d || (md < 0 && last+md+1 == d.d) {
			return true
		}
	}
	if slices.Contains(r.days, d.weekday()) {
		return true
	}
	for _, nd := range r.nthDays {
		if nd.day != d.weekday() {
			continue
		}
		if nd.n > 0 && (d.d-1)/7+1 == nd.n {
			return true
		}
		if nd.n < 0 && (last-d.d)/7+1 == -nd.n {
			return true
		}
	}
	return false
}

func daysIn(y int, m time.Month) int { return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day() }

func daysBetween(a, b civil) int {
	return int(b.date().naive().Sub(a.date().naive()).Hours() / 24)
}

// weeksBetween counts weeks (starting on Monday, as RFC 5545's default
// WKST) from the week of a to the week of b.
func weeksBetween(a, b civil) int {
	monday := func(c civil) civil { return c.addDays(-((int(c.weekday()) + 6) % 7)) }
	return daysBetween(monday(a), monday(b)) / 7
}

var longDays = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}

func (r recurrence) describe() string {
	every := "every"
	if r.interval > 1 {
		every = fmt.Sprintf("every %d", r.interval)
	}
	var s string
	switch r.freq {
	case daily:
		if r.interval > 1 {
			s = every + " days"
		} else {
			s = "every day"
		}
	case weekly:
		unit := ""
		if r.interval > 1 {
			unit = fmt.Sprintf(" (every %d weeks)", r.interval)
		}
		s = "on " + joinDays(r.days) + unit
	case monthly:
		var parts []string
		for _, md := range r.monthDay {
			if md < 0 {
				parts = append(parts, fmt.Sprintf("day %d from the end", -md))
			} else {
				parts = append(parts, fmt.Sprintf("day %d", md))
			}
		}
		for _, nd := range r.nthDays {
			parts = append(parts, ordinal(nd.n)+" "+longDays[nd.day])
		}
		if len(r.days) > 0 {
			parts = append(parts, "every "+joinDays(r.days))
		}
		unit := "month"
		if r.interval > 1 {
			unit = fmt.Sprintf("%d months", r.interval)
		}
		s = "on the " + strings.Join(parts, ", ") + " of every " + unit
	}
	if r.until != nil {
		s += fmt.Sprintf(" until %04d-%02d-%02d", r.until.y, r.until.m, r.until.d)
	}
	return s
}

func joinDays(ds []time.Weekday) string {
	sorted := slices.Clone(ds)
	slices.SortFunc(sorted, func(a, b time.Weekday) int { return (int(a)+6)%7 - (int(b)+6)%7 })
	names := make([]string, len(sorted))
	for i, d := range sorted {
		names[i] = longDays[d]
	}
	if len(names) == 7 {
		return "every day of the week"
	}
	if len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return names[0]
}

func ordinal(n int) string {
	switch n {
	case 1:
		return "first"
	case 2:
		return "second"
	case 3:
		return "third"
	case 4:
		return "fourth"
	case 5:
		return "fifth"
	case -1:
		return "last"
	}
	return fmt.Sprintf("%d from the end", -n)
}
