// Package window parses maintenance windows and exclusions: is an instant
// inside an open window, when does the next one open.
//
// It parses recurring maintenance windows and exclusion periods and answers
// two questions about them: is an instant inside an open window, and when
// does the next one open.
//
// A window is written RECURRENCE START DURATION [ZONE]:
//
//	sat,sun 02:00 4h Europe/Berlin
//	mon-fri 22:00 3h America/New_York      (crosses midnight: ends 01:00 the next day)
//	daily 01:30 90m
//	FREQ=WEEKLY;INTERVAL=2;BYDAY=TU 2025-01-07T03:00 2h Asia/Tokyo
//	FREQ=MONTHLY;BYDAY=1SU 04:00 6h Europe/London
//
// RECURRENCE is "daily", a list of days (mon,wed or a range fri-mon), or a
// subset of an RFC 5545 RRULE like the maintenance windows of GKE: FREQ
// (DAILY, WEEKLY, MONTHLY), BYDAY (with an ordinal for MONTHLY: 1MO, -1FR),
// BYMONTHDAY (MONTHLY; -1 is the last day), INTERVAL and UNTIL. START is
// the local time a window opens (HH:MM), or a local date and time
// (YYYY-MM-DDTHH:MM) before which none opens; INTERVAL counts from that
// date. DURATION is elapsed time (4h, 90m, 1d12h). ZONE is an IANA time
// zone, UTC when left out.
//
// Wall-clock times are resolved in the zone on each day: a start that does
// not exist that day (the clocks go forward through it) opens the window
// when the gap ends; a start that happens twice (the clocks go back) opens
// it the first time. The window then lasts DURATION of real time.
//
// Exclusions are periods START/END in which no window is open, with dates
// (2025-12-20/2026-01-05: the end date is included), local date-times in
// the window's zone (2025-12-24T18:00/2025-12-27T08:00) or RFC 3339 times.
package window
