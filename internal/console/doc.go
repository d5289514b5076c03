// Package console shows a run's progress: a live status line on a TTY, plain
// lines in CI, the summary.
package console
