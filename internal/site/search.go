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

// EnvSiteTools names the environment variable choosing where the site's
// tools that are not Go (Pagefind, mermaid) come from: "auto" (the
// default: an installed copy, else kbook's own, fetched from the npm
// registry on first use), "download" (kbook's own only) or "off" (an
// installed copy only: kbook fetches nothing).
const EnvSiteTools = "KBOOK_SITE_TOOLS"

// SiteTools is $KBOOK_SITE_TOOLS, "auto" when unset; another value is an
// error naming the three.
func SiteTools() (string, error) {
	switch m := os.Getenv(EnvSiteTools); m {
	case "":
		return "auto", nil
	case "auto", "download", "off":
		return m, nil
	default:
		return "", fmt.Errorf("%s=%s: want auto, download or off", EnvSiteTools, m)
	}
}

// LocatePagefind finds Pagefind as FindPagefind does and, where it is not
// installed (or SiteTools is "download"), fetches kbook's pinned copy from
// the npm registry into kbook's cache (sitetools), reporting progress to
// logger. What failed is the result's Why.
func LocatePagefind(ctx context.Context, dir string, logger log.Logger) *Pagefind {
	mode, err := SiteTools()
	if err != nil {
		return &Pagefind{Why: err.Error() + ": the site has no search"}
	}
	if mode != "download" {
		if p := FindPagefind(dir); p.Available() || mode == "off" {
			if mode == "off" && !p.Available() {
				p.Why += " (" + EnvSiteTools + "=off: kbook fetches nothing)"
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
