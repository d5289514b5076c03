package site

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/k0rdent/kbook/internal/atomicfile"
	"github.com/k0rdent/kbook/internal/cache"
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

// highlightCacheEnv names, in the Hugo child's environment, the file it
// keeps the tokens of the site's code blocks in between builds.
const highlightCacheEnv = "KBOOK_HIGHLIGHT_CACHE"

// highlightCacheFile is where the code blocks' tokens of the site whose
// docs roots are roots are kept (below kbook's cache, per chroma
// version: token types are its numbers).
func highlightCacheFile(roots []string) string {
	sum := sha256.Sum256([]byte(strings.Join(roots, "\n")))
	return filepath.Join(cache.DefaultDir(), "highlight", fmt.Sprintf("%x-%s.gob", sum[:8], chromaVersion()))
}

func chromaVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/alecthomas/chroma/v2" {
				if d.Replace != nil {
					d = d.Replace
				}
				return d.Version
			}
		}
	}
	return "devel"
}

// tokenCache holds code blocks' tokens by lexer and text. Lexing is most
// of highlighting, itself a third of the Hugo build's CPU (chroma's
// lexers are backtracking expressions), and a site's code blocks change
// little between builds: a build lexes the blocks it has not seen, and
// keeps the tokens of the blocks it has, for the next.
type tokenCache struct {
	mu   sync.Mutex
	old  map[[32]byte][]chroma.Token
	used map[[32]byte][]chroma.Token
	// lexed counts the blocks lexed (not found).
	lexed int
}

// loadTokenCache reads file; a missing or unreadable one is an empty cache.
func loadTokenCache(file string) *tokenCache {
	c := &tokenCache{used: map[[32]byte][]chroma.Token{}}
	if f, err := os.Open(file); err == nil {
		defer f.Close()
		if gob.NewDecoder(bufio.NewReader(f)).Decode(&c.old) != nil {
			c.old = nil
		}
	}
	return c
}

// save writes the tokens this build used (so the file holds the site's
// blocks, not every block it ever had) when they differ from those read.
func (c *tokenCache) save(file string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lexed == 0 && len(c.used) == len(c.old) {
		// Nothing new: the file is left as it is, but for its time,
		// which says the site is still built (tokensKept).
		if fi, err := os.Stat(file); err == nil && time.Since(fi.ModTime()) > 24*time.Hour {
			now := time.Now()
			return os.Chtimes(file, now, now)
		}
		return nil
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(c.used); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := atomicfile.Write(file, b.Bytes()); err != nil {
		return err
	}
	// The tokens of sites not built for a month go.
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(file), "*.gob"))
	for _, f := range old {
		if fi, err := os.Stat(f); err == nil && time.Since(fi.ModTime()) > tokensKept {
			_ = os.Remove(f)
		}
	}
	return nil
}

// tokensKept is how long the tokens of a site not built again are kept.
const tokensKept = 30 * 24 * time.Hour

// cachedLexer is a chroma lexer whose tokens come from the cache when it
// has them.
type cachedLexer struct {
	chroma.Lexer
	c *tokenCache
}

func (l cachedLexer) Tokenise(opts *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	if opts != nil {
		return l.Lexer.Tokenise(opts, text)
	}
	key := sha256.Sum256([]byte(l.Config().Name + "\x00" + text))
	l.c.mu.Lock()
	toks, ok := l.c.used[key]
	if !ok {
		if toks, ok = l.c.old[key]; ok {
			l.c.used[key] = toks
		}
	}
	l.c.mu.Unlock()
	if ok {
		return chroma.Literator(toks...), nil
	}
	it, err := l.Lexer.Tokenise(nil, text)
	if err != nil {
		return nil, err
	}
	toks = it.Tokens()
	l.c.mu.Lock()
	l.c.lexed++
	// An Error token can be chroma's, not the code's: a rule whose match
	// takes longer than its 250 ms timeout (a loaded machine) fails as
	// if the text did not match. Such tokens are not kept.
	if !slices.ContainsFunc(toks, func(t chroma.Token) bool { return t.Type == chroma.Error }) {
		l.c.used[key] = toks
	}
	l.c.mu.Unlock()
	return chroma.Literator(toks...), nil
}

// cacheLexers makes every lexer of chroma's registry, which Hugo's
// highlighting takes its lexers from, go through c.
func cacheLexers(c *tokenCache) {
	for _, l := range slices.Clone(lexers.GlobalLexerRegistry.Lexers) {
		if _, done := l.(cachedLexer); !done {
			lexers.GlobalLexerRegistry.Register(cachedLexer{Lexer: l, c: c})
		}
	}
}
