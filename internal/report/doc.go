// Package report owns a run's results: the JSON report, merge, JUnit XML,
// GitHub annotations.
//
// It owns the results of a kbook run: the JSON report (the record the docs
// site renders and `kbook report merge` combines), JUnit XML for CI systems,
// and GitHub Actions annotations.
package report
