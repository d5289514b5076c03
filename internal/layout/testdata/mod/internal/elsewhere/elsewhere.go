// Package elsewhere has its doc comment outside doc.go.
package elsewhere
