// Package testfile is the tests' file helpers: write a file below a
// folder, read one, copy a fixture folder, check what a text holds; each
// fails the test on an error instead of returning it.
package testfile
