// Package good is the fixture of a package as it should be: one doc comment, in doc.go.
//
// More text.
package good
