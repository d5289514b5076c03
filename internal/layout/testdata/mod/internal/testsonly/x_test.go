// Package testsonly_test is a package of tests only.
package testsonly_test
