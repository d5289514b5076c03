// Command readmetable writes README.md's package table from the packages'
// doc comments (go generate ./internal/layout).
package main
