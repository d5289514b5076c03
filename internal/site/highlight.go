package site

import (
	"os"
	"runtime/debug"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/styles"
)

// highlightStyle is the chroma style of the Hugo build: an empty one.
// kbook's theme colours code by chroma's classes (noClasses: false) in
// its own stylesheet, so a style's colours are never written; but Hugo
// makes a new chroma formatter for every code block, and each computes
// the style's CSS of every token type before it writes a token (7% of
// the Hugo build of Sveltos's 750 code blocks with Hugo's default
// monokai). An empty style has nothing to compute; the HTML is the same.
const highlightStyle = "kbook-classes"

func init() {
	styles.Register(chroma.MustNewStyle(highlightStyle, chroma.StyleEntries{}))
}

// hugoGCPercent is the garbage collector's target in the Hugo build's
// child process when GOGC does not set one: the build is short and
// allocates much (template values, chroma tokens), and at Go's default
// 100 the collector took 11% of the child's CPU on Sveltos; at 400 a
// build uses about a fifth less CPU for a quarter more memory (Sveltos:
// 1.1 s against 0.85 s, 210 MB against 260 MB).
const hugoGCPercent = 400

// tuneHugoGC sets hugoGCPercent unless the environment sets GOGC.
func tuneHugoGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(hugoGCPercent)
	}
}
