package output

import (
	"io"
	"os"

	"golang.org/x/term"
)

// NoColor is --no-color: no colour even on a terminal.
var NoColor bool

// Terminal is a writer Color takes for a terminal: the tests of
// coloured text write to one.
type Terminal struct{ io.Writer }

// isTerminal tells whether w is a terminal (or a Terminal).
func isTerminal(w io.Writer) bool {
	if _, ok := w.(Terminal); ok {
		return true
	}
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// Color says whether text written to w may be coloured: only when w is a
// terminal, $NO_COLOR is unset or empty (https://no-color.org) and
// --no-color was not given. A file, a pipe or a buffer never gets colour,
// and neither does json or yaml, which no text writer writes.
func Color(w io.Writer) bool {
	return !NoColor && os.Getenv("NO_COLOR") == "" && isTerminal(w)
}

// Palette colours words of human text; its zero value leaves them as they
// are. Colors gives the one that suits a writer.
type Palette struct{ on bool }

// Colors is the palette of text written to w: colours where Color(w).
func Colors(w io.Writer) Palette { return Palette{Color(w)} }

func (p Palette) paint(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\033[" + code + "m" + s + "\033[0m"
}

// Bad is a failure's or an error's colour: red.
func (p Palette) Bad(s string) string { return p.paint("31", s) }

// Warn is a warning's colour: yellow.
func (p Palette) Warn(s string) string { return p.paint("33", s) }

// Good is a pass's colour: green.
func (p Palette) Good(s string) string { return p.paint("32", s) }

// Faint is a skip's or a note's colour: dim.
func (p Palette) Faint(s string) string { return p.paint("2", s) }
