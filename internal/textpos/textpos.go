package textpos

import "sort"

// Lines holds the offsets at which the lines of a source start.
type Lines []int

// NewLines indexes the line starts of src.
func NewLines(src []byte) Lines {
	ls := Lines{0}
	for i, c := range src {
		if c == '\n' {
			ls = append(ls, i+1)
		}
	}
	return ls
}

// Line returns the 1-based line holding offset off.
func (ls Lines) Line(off int) int {
	return sort.Search(len(ls), func(i int) bool { return ls[i] > off })
}

// Start returns the offset at which 1-based line n starts (the last
// line's start past the end).
func (ls Lines) Start(n int) int {
	if n-1 < len(ls) {
		return ls[n-1]
	}
	return ls[len(ls)-1]
}
