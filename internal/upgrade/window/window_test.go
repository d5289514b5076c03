package window

import (
	"strings"
	"testing"
	"time"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ spec, err string }{
		{"sat 02:00", "want RECURRENCE START DURATION [ZONE]"},
		{"sat 25:00 4h", `start "25:00": want a time of day HH:MM`},
		{"sat 2:0 4h", `start "2:0": want a time of day HH:MM`},
		{"sat 02:00 4h Mars/Olympus", `zone "Mars/Olympus" is not an IANA time zone`},
		{"sat 02:00 4h Local", "zone Local depends on the machine"},
		{"someday 02:00 4h", `"someday" is not a day`},
		{"mon-xyz 02:00 4h", `"xyz" is not a day`},
		{"sat 02:00 0m", "at least one minute"},
		{"sat 02:00 40d", "at most 31 days"},
		{"sat 02:00 soon", `duration "soon"`},
		{"FREQ=HOURLY 02:00 1h", "kbook supports DAILY, WEEKLY and MONTHLY"},
		{"FREQ=WEEKLY 02:00 1h", "FREQ=WEEKLY needs BYDAY"},
		{"FREQ=MONTHLY 02:00 1h", "FREQ=MONTHLY needs BYDAY or BYMONTHDAY"},
		{"FREQ=WEEKLY;BYDAY=1MO 02:00 1h", "ordinals in BYDAY (1MO) need FREQ=MONTHLY"},
		{"FREQ=WEEKLY;BYDAY=XX 02:00 1h", `BYDAY "XX"`},
		{"FREQ=WEEKLY;BYDAY=SA;COUNT=3 02:00 1h", "COUNT is not supported"},
		{"FREQ=WEEKLY;INTERVAL=2;BYDAY=MO 02:00 1h", "INTERVAL=2 needs a start date"},
		{"FREQ=DAILY;FREQ=DAILY 02:00 1h", "FREQ given twice"},
		{"FREQ=MONTHLY;BYMONTHDAY=32 02:00 1h", `BYMONTHDAY "32"`},
		{"sat 2025-13-01T02:00 1h", "want HH:MM or YYYY-MM-DDTHH:MM"},
	} {
		_, err := Parse(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Parse(%q) error = %v, want %q", tc.spec, err, tc.err)
		}
		if err != nil && !strings.Contains(err.Error(), tc.spec) {
			t.Errorf("Parse(%q) error %q does not name the window", tc.spec, err)
		}
	}
}

func TestDescribe(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{"sat,sun 02:00 4h Europe/Berlin", "on Saturday and Sunday at 02:00 Europe/Berlin for 4h"},
		{"fri-mon 22:00 90m", "on Monday, Friday, Saturday and Sunday at 22:00 UTC for 1h30m"},
		{"daily 01:00 1d12h", "every day at 01:00 UTC for 36h"},
		{"FREQ=MONTHLY;BYDAY=1SU,-1FR 04:00 6h Europe/London", "on the first Sunday, last Friday of every month at 04:00 Europe/London for 6h"},
		{"FREQ=WEEKLY;INTERVAL=2;BYDAY=TU 2025-01-07T03:00 2h Asia/Tokyo", "on Tuesday (every 2 weeks) at 03:00 Asia/Tokyo for 2h, from 2025-01-07"},
		{"FREQ=DAILY;UNTIL=20251231 03:00 1h", "every day until 2025-12-31 at 03:00 UTC for 1h"},
	} {
		w, err := Parse(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Describe(); got != tc.want {
			t.Errorf("Describe(%q) = %q, want %q", tc.spec, got, tc.want)
		}
	}
}

// TestSchedule checks, at one instant, whether a window is open and which
// open span comes next (the current one when open).
func TestSchedule(t *testing.T) {
	for _, tc := range []struct {
		name       string
		spec       string
		exclusions string
		at         string
		open       bool
		next       string // start/end of the next (or current) open span, RFC 3339 UTC; "" none
	}{
		{name: "weekly, inside", spec: "sat,sun 02:00 4h Europe/Berlin", at: "2025-06-07T01:30:00Z",
			open: true, next: "2025-06-07T00:00:00Z/2025-06-07T04:00:00Z"},
		{name: "weekly, outside: next Saturday", spec: "sat,sun 02:00 4h Europe/Berlin", at: "2025-06-09T10:00:00Z",
			next: "2025-06-14T00:00:00Z/2025-06-14T04:00:00Z"},
		{name: "zone matters: winter offset", spec: "sat 02:00 4h Europe/Berlin", at: "2025-01-06T00:00:00Z",
			next: "2025-01-11T01:00:00Z/2025-01-11T05:00:00Z"},
		{name: "across midnight: open after midnight", spec: "mon-fri 22:00 4h", at: "2025-06-10T01:00:00Z",
			open: true, next: "2025-06-09T22:00:00Z/2025-06-10T02:00:00Z"},
		{name: "across midnight: Friday's window runs into Saturday", spec: "mon-fri 22:00 4h", at: "2025-06-14T01:59:00Z",
			open: true, next: "2025-06-13T22:00:00Z/2025-06-14T02:00:00Z"},
		{name: "across midnight: closed at the end", spec: "mon-fri 22:00 4h", at: "2025-06-14T02:00:00Z",
			next: "2025-06-16T22:00:00Z/2025-06-17T02:00:00Z"},
		{name: "DST gap: a start that does not exist opens when the gap ends", spec: "sun 02:30 1h Europe/Berlin",
			at: "2025-03-29T12:00:00Z", next: "2025-03-30T01:00:00Z/2025-03-30T02:00:00Z"},
		{name: "DST gap: the window is open right after the gap", spec: "sun 02:30 1h Europe/Berlin",
			at: "2025-03-30T01:00:00Z", open: true, next: "2025-03-30T01:00:00Z/2025-03-30T02:00:00Z"},
		{name: "DST gap of 30 minutes (Lord Howe)", spec: "sun 02:15 1h Australia/Lord_Howe",
			at: "2025-10-04T00:00:00Z", next: "2025-10-04T15:30:00Z/2025-10-04T16:30:00Z"},
		{name: "DST overlap: a start that happens twice opens the first time", spec: "sun 02:30 1h Europe/Berlin",
			at: "2025-10-25T12:00:00Z", next: "2025-10-26T00:30:00Z/2025-10-26T01:30:00Z"},
		{name: "DST overlap: the duration is real time", spec: "sun 01:30 2h America/New_York",
			at: "2025-11-01T00:00:00Z", next: "2025-11-02T05:30:00Z/2025-11-02T07:30:00Z"},
		{name: "DST overlap: closed at the second 02:30", spec: "sun 01:30 2h America/New_York",
			at: "2025-11-02T07:30:00Z", next: "2025-11-09T06:30:00Z/2025-11-09T08:30:00Z"},
		{name: "summer time shifts the UTC start", spec: "sun 02:00 1h America/New_York",
			at: "2025-03-08T00:00:00Z", next: "2025-03-09T07:00:00Z/2025-03-09T08:00:00Z"},
		{name: "exclusion of whole days", spec: "daily 02:00 4h", exclusions: "2025-12-24/2025-12-26",
			at: "2025-12-25T03:00:00Z", next: "2025-12-27T02:00:00Z/2025-12-27T06:00:00Z"},
		{name: "exclusion cuts a window short", spec: "daily 02:00 4h", exclusions: "2025-06-01T03:00/2025-06-01T04:00",
			at: "2025-06-01T02:30:00Z", open: true, next: "2025-06-01T02:00:00Z/2025-06-01T03:00:00Z"},
		{name: "a window reopens when an exclusion ends", spec: "daily 02:00 4h", exclusions: "2025-06-01T03:00/2025-06-01T04:00",
			at: "2025-06-01T03:30:00Z", next: "2025-06-01T04:00:00Z/2025-06-01T06:00:00Z"},
		{name: "exclusion in the window's zone", spec: "daily 02:00 4h Europe/Berlin", exclusions: "2025-07-01/2025-07-01",
			at: "2025-06-30T23:00:00Z", next: "2025-07-02T00:00:00Z/2025-07-02T04:00:00Z"},
		{name: "several exclusions, RFC 3339", spec: "sat 02:00 4h",
			exclusions: "2025-06-07T00:00:00Z/2025-06-08T00:00:00Z,2025-06-14/2025-06-14",
			at:         "2025-06-06T00:00:00Z", next: "2025-06-21T02:00:00Z/2025-06-21T06:00:00Z"},
		{name: "monthly on the first Sunday", spec: "FREQ=MONTHLY;BYDAY=1SU 04:00 6h Europe/London",
			at: "2025-06-10T00:00:00Z", next: "2025-07-06T03:00:00Z/2025-07-06T09:00:00Z"},
		{name: "monthly on the last day", spec: "FREQ=MONTHLY;BYMONTHDAY=-1 23:00 2h",
			at: "2025-02-10T00:00:00Z", next: "2025-02-28T23:00:00Z/2025-03-01T01:00:00Z"},
		{name: "monthly on the last Friday", spec: "FREQ=MONTHLY;BYDAY=-1FR 20:00 1h",
			at: "2025-05-01T00:00:00Z", next: "2025-05-30T20:00:00Z/2025-05-30T21:00:00Z"},
		{name: "every other Tuesday from a start date", spec: "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU 2025-01-07T03:00 2h Asia/Tokyo",
			at: "2025-01-08T00:00:00Z", next: "2025-01-20T18:00:00Z/2025-01-20T20:00:00Z"},
		{name: "every third day", spec: "FREQ=DAILY;INTERVAL=3 2025-01-01T00:00 1h",
			at: "2025-01-02T00:00:00Z", next: "2025-01-04T00:00:00Z/2025-01-04T01:00:00Z"},
		{name: "a start date in the future", spec: "sat 2099-01-03T02:00 4h Europe/Berlin",
			at: "2025-06-01T00:00:00Z", next: "2099-01-03T01:00:00Z/2099-01-03T05:00:00Z"},
		{name: "no window before the start date", spec: "sat 2025-06-14T02:00 4h",
			at: "2025-06-07T03:00:00Z", next: "2025-06-14T02:00:00Z/2025-06-14T06:00:00Z"},
		{name: "UNTIL in the past: no window any more", spec: "FREQ=DAILY;UNTIL=20200101 02:00 1h",
			at: "2025-06-01T00:00:00Z"},
		{name: "UNTIL includes its day", spec: "FREQ=DAILY;UNTIL=20250601 02:00 1h",
			at: "2025-06-01T00:00:00Z", next: "2025-06-01T02:00:00Z/2025-06-01T03:00:00Z"},
		{name: "excluded for good", spec: "daily 02:00 1h", exclusions: "2000-01-01/2099-12-31",
			at: "2025-06-01T02:30:00Z"},
		{name: "windows longer than the period merge", spec: "daily 00:00 1d1h",
			at: "2025-06-01T12:00:00Z", open: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := Parse(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			s := Schedule{Window: w}
			if tc.exclusions != "" {
				if s.Exclusions, err = ParseExclusions(tc.exclusions, w.Location()); err != nil {
					t.Fatal(err)
				}
			}
			at := mustTime(t, tc.at)
			cur, open := s.Open(at)
			if open != tc.open {
				t.Errorf("Open(%s) = %v, want %v", tc.at, open, tc.open)
			}
			next, ok := s.Next(at)
			got := ""
			if ok {
				got = next.Start.UTC().Format(time.RFC3339) + "/" + next.End.UTC().Format(time.RFC3339)
			}
			if tc.next != "" || tc.name != "windows longer than the period merge" {
				if got != tc.next {
					t.Errorf("Next(%s) = %q, want %q", tc.at, got, tc.next)
				}
			}
			if open && (!ok || !next.Start.Equal(cur.Start)) {
				t.Errorf("open at %s in %v but Next says %v", tc.at, cur, next)
			}
		})
	}
}

func TestParseExclusionErrors(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{"2025-12-20", "want START/END"},
		{"2025-12-20/xmas", `end: "xmas" is not a time`},
		{"2025-12-20/2025-12-19", "the end is not after the start"},
		{"2025-12-20T10:00/2025-12-20T10:00", "the end is not after the start"},
	} {
		_, err := ParseExclusion(tc.in, time.UTC)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseExclusion(%q) = %v, want %q", tc.in, err, tc.err)
		}
	}
	// A date-only end includes the day, in the zone given.
	berlin, _ := time.LoadLocation("Europe/Berlin")
	sp, err := ParseExclusion("2025-12-24/2025-12-26", berlin)
	if err != nil {
		t.Fatal(err)
	}
	if got := sp.Start.UTC().Format(time.RFC3339) + " " + sp.End.UTC().Format(time.RFC3339); got != "2025-12-23T23:00:00Z 2025-12-26T23:00:00Z" {
		t.Errorf("span %s", got)
	}
}

func TestHumanize(t *testing.T) {
	for d, want := range map[time.Duration]string{
		20 * time.Second:               "less than a minute",
		45 * time.Minute:               "45m",
		13 * time.Hour:                 "13h",
		150 * time.Minute:              "2h30m",
		180*time.Hour + 30*time.Minute: "7d12h",
		72 * time.Hour:                 "3d",
		73 * 366 * 24 * time.Hour:      "73y",
	} {
		if got := Humanize(d); got != want {
			t.Errorf("Humanize(%s) = %q, want %q", d, got, want)
		}
	}
}
