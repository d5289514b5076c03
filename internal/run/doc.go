// Package run is `kbook run` as a library: options checked before anything
// runs, the cache, the cluster target, the runner, the summary, JSON and
// JUnit reports.
//
// It is kbook run as a library: it checks the options, opens the cache,
// makes the cluster target a runbook needs, runs the runbooks with package
// runner, prints the summary and writes the JSON and JUnit reports. kbook
// run, build and serve all call Run in process.
package run
