package textpos

import "testing"

func TestLines(t *testing.T) {
	src := []byte("ab\ncd\n\nef")
	ls := NewLines(src)
	for _, tt := range []struct{ off, line int }{
		{0, 1}, {1, 1}, {2, 1}, // the newline ends its line
		{3, 2}, {5, 2},
		{6, 3},
		{7, 4}, {8, 4},
	} {
		if got := ls.Line(tt.off); got != tt.line {
			t.Errorf("Line(%d) = %d, want %d", tt.off, got, tt.line)
		}
	}
	for _, tt := range []struct{ n, start int }{{1, 0}, {2, 3}, {3, 6}, {4, 7}, {9, 7}} {
		if got := ls.Start(tt.n); got != tt.start {
			t.Errorf("Start(%d) = %d, want %d", tt.n, got, tt.start)
		}
	}
}
