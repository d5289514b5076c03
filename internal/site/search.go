package site

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/sitetools"
)

// EnvPagefind names the environment variable pointing at the pagefind binary.
const EnvPagefind = "KBOOK_PAGEFIND"

// Pagefind indexes built versions for static search. Pagefind is not part
// of kbook: it is the npm package "pagefind" (a static binary once
// installed). Without it the site is built without search and says so.
type Pagefind struct {
	// Path is the pagefind executable; "" when it was not found.
	Path string
	// Why says why Path is empty.
	Why string
}

// FindPagefind looks for pagefind: $KBOOK_PAGEFIND, then PATH, then
// node_modules/.bin in dir and its parents, then npm/ in kbook's cache
// directory (where make installs it), then the copy kbook fetched there
// (LocatePagefind); it fetches nothing.
func FindPagefind(dir string) *Pagefind {
	if p := os.Getenv(EnvPagefind); p != "" {
		if _, err := os.Stat(p); err != nil {
			return &Pagefind{Why: fmt.Sprintf("%s=%s: %v", EnvPagefind, p, err)}
		}
		return &Pagefind{Path: p}
	}
	if p, err := exec.LookPath("pagefind"); err == nil {
		return &Pagefind{Path: p}
	}
	abs, _ := filepath.Abs(dir)
	for d := abs; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "node_modules", ".bin", "pagefind")
		if _, err := os.Stat(p); err == nil {
			return &Pagefind{Path: p}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	p := filepath.Join(cache.DefaultDir(), "npm", "node_modules", ".bin", "pagefind")
	if _, err := os.Stat(p); err == nil {
		return &Pagefind{Path: p}
	}
	if bin, ok := (&sitetools.Client{}).CachedPagefind(); ok {
		return &Pagefind{Path: bin}
	}
	return &Pagefind{Why: "pagefind is not installed (npm install -g pagefind, or set " + EnvPagefind + "): the site has no search"}
}

// LocatePagefind finds Pagefind as FindPagefind does and, where it is not
// installed (or tools is Download) and tools allows it, fetches kbook's
// pinned copy from the npm registry into kbook's cache (sitetools),
// reporting progress to logger. What failed is the result's Why.
func LocatePagefind(ctx context.Context, dir string, tools sitetools.Mode, logger log.Logger) *Pagefind {
	if tools.Installed() {
		if p := FindPagefind(dir); p.Available() || !tools.Fetches() {
			if !p.Available() {
				p.Why += " (--site-tools off: kbook fetches nothing)"
			}
			return p
		}
	}
	bin, err := (&sitetools.Client{Log: logger}).Pagefind(ctx)
	if err != nil {
		return &Pagefind{Why: "search: " + err.Error()}
	}
	return &Pagefind{Path: bin}
}

// Available reports whether pagefind was found.
func (p *Pagefind) Available() bool { return p != nil && p.Path != "" }

// Index writes dir/pagefind/, the search index of the version in dir, and
// says what it did.
func (p *Pagefind) Index(ctx context.Context, dir string) string {
	if !p.Available() {
		return p.Why
	}
	cmd := exec.CommandContext(ctx, p.Path, "--site", dir, "--quiet")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Sprintf("pagefind failed, the site has no search: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return "indexed with pagefind"
}
