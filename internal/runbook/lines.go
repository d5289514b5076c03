package runbook

import "sort"

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int // offsets of line starts

func newLineIndex(src []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range src {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// line returns the 1-based line holding offset off.
func (l lineIndex) line(off int) int {
	return sort.Search(len(l), func(i int) bool { return l[i] > off })
}

// start returns the offset of the start of 1-based line n.
func (l lineIndex) start(n int) int {
	if n-1 < len(l) {
		return l[n-1]
	}
	return l[len(l)-1]
}
