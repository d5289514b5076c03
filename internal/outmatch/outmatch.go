package outmatch

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Mode is how expected output is compared with what ran.
type Mode string

const (
	// Exact wants the same lines; only trailing spaces and blank lines at
	// the ends are ignored (editors strip them).
	Exact Mode = "exact"
	// Shape wants the same shape: a kubectl-style table's header and row
	// keys (its first column, with NAME when the first is NAMESPACE);
	// other lines word for word with timestamps wildcarded; "..." alone on
	// a line stands for any number of lines.
	Shape Mode = "shape"
	// Illustrative output is shown to readers but never compared.
	Illustrative Mode = "illustrative"
)

// Modes lists the modes, the default first.
var Modes = []Mode{Shape, Exact, Illustrative}

// ParseMode reads a mode's name; "" is the default, Shape.
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return Shape, nil
	}
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown output mode %q (known: shape, exact, illustrative)", s)
}

// Ellipsis alone on a line of expected output matches any number of lines
// (in shape mode).
const Ellipsis = "..."

// Mismatch says where output and expected output part.
type Mismatch struct {
	// Line is the 1-based line of the expected output that found no
	// match; 0 when the output has lines beyond the expected output's end.
	Line int
	// Want is that expected line ("" past its end), Got the output line
	// there ("" past the output's end).
	Want, Got string
	// Why says in words what differs.
	Why string
}

func (m *Mismatch) Error() string { return m.Why }

// Compare reports whether got matches want under mode: nil when it does.
func Compare(mode Mode, want, got string) *Mismatch {
	switch mode {
	case Illustrative:
		return nil
	case Exact:
		return compare(want, got, exactPatterns)
	default:
		return compare(want, got, shapePatterns)
	}
}

// lines splits text into lines without trailing spaces, dropping blank
// lines at both ends; skipped is how many it dropped at the start.
func lines(s string) (ls []string, skipped int) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	ls = strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " \t\r")
	}
	for len(ls) > 0 && ls[0] == "" {
		ls, skipped = ls[1:], skipped+1
	}
	for len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	return ls, skipped
}

// pattern matches one output line, or (any) any run of lines.
type pattern struct {
	text  string
	any   bool
	match func(got string) bool
	// kind says what the line was taken for, for messages.
	kind string
}

func exactPatterns(want []string) []pattern {
	ps := make([]pattern, len(want))
	for i, w := range want {
		ps[i] = pattern{text: w, match: func(g string) bool { return g == w }, kind: "line"}
	}
	return ps
}

// shapePatterns reads the expected lines: "..." lines, table headers and
// the rows below them (until a blank line), and other text.
func shapePatterns(want []string) []pattern {
	ps := make([]pattern, len(want))
	var header []string // the current table's columns; nil outside a table
	for i, w := range want {
		switch {
		case strings.TrimSpace(w) == Ellipsis:
			ps[i] = pattern{text: w, any: true}
			continue
		case strings.TrimSpace(w) == "":
			header = nil
			ps[i] = pattern{text: w, match: func(g string) bool { return strings.TrimSpace(g) == "" }, kind: "blank line"}
			continue
		case isHeader(w):
			header = strings.Fields(w)
			cols := header
			ps[i] = pattern{text: w, match: func(g string) bool { return slices.Equal(strings.Fields(g), cols) }, kind: "table header"}
			continue
		case header != nil:
			key := rowKey(header, strings.Fields(w))
			ps[i] = pattern{text: w, match: func(g string) bool { return sameKey(strings.Fields(g), key) }, kind: "table row"}
			continue
		}
		words := normalize(w)
		ps[i] = pattern{text: w, match: func(g string) bool { return slices.Equal(normalize(g), words) }, kind: "line"}
	}
	return ps
}

// isHeader reports whether l looks like a kubectl-style table header: two
// or more upper-case column names, set apart by runs of spaces or tabs.
func isHeader(l string) bool {
	f := strings.Fields(l)
	if len(f) < 2 || !(strings.Contains(l, "  ") || strings.Contains(l, "\t")) {
		return false
	}
	for _, w := range f {
		if !headerWord.MatchString(w) {
			return false
		}
	}
	return true
}

var headerWord = regexp.MustCompile(`^[A-Z][A-Z0-9_./()-]*$`)

// rowKey is a row's key: its first cell, and the second as well when the
// table's first column is NAMESPACE (kubectl get -A).
func rowKey(header, cells []string) []string {
	n := 1
	if len(header) > 1 && header[0] == "NAMESPACE" {
		n = 2
	}
	return cells[:min(n, len(cells))]
}

// sameKey compares got's first cells with key, generated name suffixes
// wildcarded.
func sameKey(got, key []string) bool {
	if len(got) < len(key) {
		return false
	}
	for i := range key {
		if got[i] != key[i] && trimGenerated(got[i]) != trimGenerated(key[i]) {
			return false
		}
	}
	return true
}

// Kubernetes makes names' random suffixes from an alphabet without vowels
// and without 0, 1 and 3 (k8s.io/apimachinery/pkg/util/rand): a
// Deployment's pods end in -<template hash>-<5>, a Job's and a generateName's in -<5>.
var generated = regexp.MustCompile(`(-[bcdfghjklmnpqrstvwxz2456789]{6,10})?-[bcdfghjklmnpqrstvwxz2456789]{5}$`)

func trimGenerated(name string) string {
	return generated.ReplaceAllString(name, "-*")
}

// timestamp matches RFC 3339 and "date time" timestamps.
var timestamp = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?`)

// normalize splits a text line into words, timestamps wildcarded.
func normalize(l string) []string {
	return strings.Fields(timestamp.ReplaceAllString(l, "<time>"))
}

// compare matches got against the patterns made from want; "..." patterns
// match any run of lines (backtracking). On failure it reports the
// furthest point any attempt reached.
func compare(wantText, gotText string, patterns func([]string) []pattern) *Mismatch {
	want, skipped := lines(wantText)
	got, _ := lines(gotText)
	ps := patterns(want)
	best := struct{ p, g int }{-1, -1}
	var match func(p, g int) bool
	seen := map[[2]int]bool{}
	match = func(p, g int) bool {
		if seen[[2]int{p, g}] {
			return false
		}
		seen[[2]int{p, g}] = true
		if p > best.p || (p == best.p && g > best.g) {
			best.p, best.g = p, g
		}
		if p == len(ps) {
			return g == len(got)
		}
		if ps[p].any {
			for k := g; k <= len(got); k++ {
				if match(p+1, k) {
					return true
				}
			}
			return false
		}
		return g < len(got) && ps[p].match(got[g]) && match(p+1, g+1)
	}
	if match(0, 0) {
		return nil
	}
	p, g := best.p, best.g
	m := &Mismatch{Line: p + 1 + skipped}
	if g < len(got) {
		m.Got = got[g]
	}
	switch {
	case p == len(ps):
		m.Line = 0
		m.Why = fmt.Sprintf("the output goes on after the expected output's last line: %q", m.Got)
	case g == len(got):
		m.Want = ps[p].text
		m.Why = fmt.Sprintf("the output ended; expected line %d: %q", m.Line, m.Want)
	default:
		m.Want = ps[p].text
		m.Why = fmt.Sprintf("expected line %d (%s): want %q, got %q", m.Line, ps[p].kind, m.Want, m.Got)
	}
	return m
}
