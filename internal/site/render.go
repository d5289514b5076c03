package site

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/atomicfile"
	"github.com/k0rdent/kbook/internal/docsrepo"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/mkdocs/markdown"
	"github.com/k0rdent/kbook/internal/sitetools"
	"github.com/k0rdent/kbook/internal/version"
)

// Options configure a build.
type Options struct {
	// Out is the output folder holding every version (default public).
	Out string
	// BaseURL overrides kbook.yaml's baseURL.
	BaseURL string
	// Search indexes each built version with Pagefind when it is
	// installed; nil skips search.
	Search *Pagefind
	// LiveReload is the URL of serve's reload event stream ("" outside serve).
	LiveReload string
	// Logger receives warnings and progress; nil discards them.
	Logger log.Logger
	// Dirs records the build's work folder while it exists, so that a
	// killed build's is removed by the next kbook (proc.Registry does);
	// nil: untracked.
	Dirs DirTracker
	// CheckOnly renders the site in a temporary folder and writes nothing
	// to Out: a template error is found before the runbooks run.
	CheckOnly bool
	// HugoTimeout bounds the Hugo build (0: DefaultHugoTimeout); a build
	// still running then is stopped and Render fails.
	HugoTimeout time.Duration
	// Children starts the Hugo build as a child process that a stuck
	// build can be killed with (see RunHugoChild); nil: Dirs when it can
	// start children (a *proc.Registry does), else Hugo runs in-process.
	Children ChildStarter
	// Tools chooses where mermaid comes from (sitetools.Mode; the zero
	// value, Auto: an installed copy, else kbook's own, fetched once).
	Tools sitetools.Mode
}

// DirTracker records directories that must not outlive kbook;
// *proc.Registry is one.
type DirTracker interface {
	TrackDir(path string) error
	ForgetDir(path string)
}

// Result describes a finished build.
type Result struct {
	// Versions are the versions built, with their verification rows.
	Versions map[string][]Verification
	// Pages counts the HTML pages written.
	Pages int
	// Search says whether a search index was made, or why not.
	Search string
	// Duration is the time taken by Hugo.
	Hugo time.Duration
}

// Render builds the versions into opts.Out: each one replaces its folder,
// versions already in Out stay, versions.json, aliases and the root
// redirect are updated. vs[0] is the newest version; its project's
// configuration and layout overrides apply to the build.
func Render(ctx context.Context, vs []*Version, opts Options) (*Result, error) {
	if len(vs) == 0 {
		return nil, fmt.Errorf("no version to build")
	}
	if err := ctx.Err(); err != nil {
		return nil, err // interrupted already: nothing is written
	}
	logger := log.Or(opts.Logger)
	if opts.Out == "" {
		opts.Out = "public"
	}
	out, err := filepath.Abs(opts.Out)
	if err != nil {
		return nil, err
	}
	opts.Out = out
	cfg := *vs[0].Project.Config
	if opts.BaseURL != "" {
		cfg.BaseURL = strings.TrimSuffix(opts.BaseURL, "/") + "/"
	}
	names := map[string]bool{}
	for _, v := range vs {
		if err := docsrepo.CheckVersionName(v.Name); err != nil {
			return nil, err
		}
		names[v.Name] = true
	}
	for _, v := range vs {
		for _, a := range v.Aliases {
			if err := docsrepo.CheckVersionName(a); err != nil {
				return nil, fmt.Errorf("alias: %w", err)
			}
			if names[a] {
				return nil, fmt.Errorf("alias %s is also a version being built", a)
			}
		}
	}
	existing, err := ReadVersions(opts.Out)
	if err != nil {
		return nil, err
	}
	for _, e := range existing {
		for _, v := range vs {
			if contains(v.Aliases, e.Version) {
				return nil, fmt.Errorf("alias %s is the name of a version already in %s", e.Version, opts.Out)
			}
		}
	}
	parent := opts.Out
	if opts.CheckOnly {
		parent = "" // os.TempDir(): Out is left as it is
	} else if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, err
	}
	work, err := trackedTemp(opts.Dirs, parent, ".kbook-build-")
	if err != nil {
		return nil, err
	}
	defer removeTracked(opts.Dirs, work)

	params := map[string]any{
		"kbookVersion": version.String(),
		"hugoVersion":  HugoVersion,
		// root is the site root as Hugo writes URLs ("/", made relative to
		// each page); baseURL and basePath are the deploy address and its
		// path, for what must be absolute (hugoConfig).
		"root":         "/",
		"baseURL":      cfg.BaseURL,
		"basePath":     strings.TrimSuffix(relRoot(cfg.BaseURL), "/") + "/",
		"repo":         cfg.Repo,
		"branch":       cfg.Branch,
		"defaultAlias": cfg.DefaultAlias,
		"liveReload":   opts.LiveReload,
		"versions":     folders(existing, vs),
		"versionNames": versionNames(existing, vs),
		"aliases":      aliasFolders(existing, vs),
		"search":       opts.Search != nil && opts.Search.Available(),
		"contentDir":   cfg.Content,
		"repoPrefix":   repoPrefix(vs[0].Project.Dir),
	}
	g, err := generate(work, vs, &cfg, params)
	if err != nil {
		return nil, err
	}
	for _, v := range vs {
		abs, _ := filepath.Abs(v.Project.Dir)
		g.roots = append(g.roots, abs+string(filepath.Separator))
	}
	publish := filepath.Join(work, "public")
	start := time.Now()
	children := opts.Children
	if cs, ok := opts.Dirs.(ChildStarter); ok && children == nil {
		children = cs
	}
	warnings, err := runHugo(ctx, g, publish, children, opts.HugoTimeout)
	if err != nil {
		return nil, err
	}
	res := &Result{Versions: g.verification, Hugo: time.Since(start)}
	if ms := vs[0].Project.MkDocs; ms != nil && !opts.CheckOnly {
		for _, n := range ms.Notes() {
			log.Warnf(logger, "%s", n)
		}
	}
	for _, w := range warnings {
		log.Warnf(logger, "%s", w)
	}
	// What was written is what readers follow: relative links are made to
	// resolve where each page is written, and every internal link of the
	// HTML is checked against the written files.
	for _, v := range vs {
		fs, err := fixWritten(publish, v, folders(existing, vs), cfg.Links)
		if err != nil {
			return nil, err
		}
		if len(fs) > 0 {
			// A broken link of the Markdown was reported by the link
			// check before the build: once is enough.
			fs = notReported(fs, CheckLinks(v.Project, "", vs...))
		}
		if err := linkFindingsError(fs, logger); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.CheckOnly {
		return res, nil
	}
	list := existing
	for _, v := range vs {
		built := filepath.Join(publish, v.Name)
		rows := g.verification[v.Name]
		doc := map[string]any{"version": v.Name, "kbook": version.String(), "built": time.Now().UTC().Format(time.RFC3339), "summary": summarize(rows), "runbooks": rows}
		data, _ := json.MarshalIndent(doc, "", "  ")
		if err := atomicfile.Write(filepath.Join(built, "verification.json"), append(data, '\n')); err != nil {
			return nil, err
		}
		res.Pages += countHTML(built)
		if opts.Search != nil {
			res.Search = opts.Search.Index(ctx, built)
		}
		title := v.Title
		if title == "" {
			title = v.Name
		}
		aliases := v.Aliases
		if aliases == nil {
			aliases = []string{}
		}
		entry := VersionEntry{Version: v.Name, Title: title, Aliases: aliases}
		if err := install(built, opts.Out, entry); err != nil {
			return nil, err
		}
		list = mergeVersions(list, entry)
	}
	// Hugo publishes resources (the fingerprinted CSS and JS) once, at the
	// root; they are shared by the versions and never overwritten.
	if err := installShared(publish, opts.Out, names); err != nil {
		return nil, err
	}
	if err := installMermaid(ctx, vs, opts.Out, opts.Tools, logger); err != nil {
		return nil, err
	}
	if err := writeRoot(opts.Out, cfg.BaseURL, list, cfg.DefaultAlias); err != nil {
		return nil, err
	}
	return res, nil
}

// relRoot is the path part of a base URL ("/docs/" for https://x.io/docs/).
func relRoot(base string) string {
	if i := strings.Index(base, "://"); i >= 0 {
		rest := base[i+3:]
		if j := strings.Index(rest, "/"); j >= 0 {
			return rest[j:]
		}
		return "/"
	}
	if !strings.HasPrefix(base, "/") {
		return "/" + base
	}
	return base
}

func countHTML(dir string) int {
	n := 0
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasSuffix(p, ".html") {
			n++
		}
		return nil
	})
	return n
}

// trackedTemp makes a temporary folder in dir and records it in dirs.
func trackedTemp(dirs DirTracker, dir, pattern string) (string, error) {
	d, err := os.MkdirTemp(dir, pattern)
	if err != nil || dirs == nil {
		return d, err
	}
	if err := dirs.TrackDir(d); err != nil {
		os.RemoveAll(d)
		return "", err
	}
	return d, nil
}

// removeTracked removes a folder made by trackedTemp.
func removeTracked(dirs DirTracker, d string) {
	_ = os.RemoveAll(d)
	if dirs != nil {
		dirs.ForgetDir(d)
	}
}

// aliasFolders are the alias folders the site will have: canonical links
// name the default alias only when it exists.
func aliasFolders(existing []VersionEntry, vs []*Version) []string {
	building := map[string]bool{}
	out := []string{}
	for _, v := range vs {
		building[v.Name] = true
		out = append(out, v.Aliases...)
	}
	for _, e := range existing {
		for _, a := range e.Aliases {
			// A version built again takes its aliases from this build.
			if !building[e.Version] && !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// folders are the version and alias folder names links may start with.
func folders(existing []VersionEntry, vs []*Version) []string {
	var out []string
	for _, e := range existing {
		out = append(out, e.Version)
		out = append(out, e.Aliases...)
	}
	for _, v := range vs {
		out = append(out, v.Name)
		out = append(out, v.Aliases...)
	}
	return out
}

// versionNames are the versions the site will hold, newest first (those
// being built, then those already in the output): the version switcher's
// options where versions.json cannot be read (file://).
func versionNames(existing []VersionEntry, vs []*Version) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Name)
	}
	for _, e := range existing {
		if !slices.Contains(out, e.Version) {
			out = append(out, e.Version)
		}
	}
	return out
}

// installMermaid serves the site's own copy of mermaid at <root>js/ when a
// page of an MkDocs project draws a diagram: the theme's mkdocs.js loads it
// on those pages only: the npm package make site-tools installs, else (or
// with sitetools.Download) kbook's pinned copy fetched from the npm
// registry (sitetools). Without either the diagrams' source shows as
// text, said once.
func installMermaid(ctx context.Context, vs []*Version, out string, tools sitetools.Mode, logger log.Logger) error {
	need := false
	for _, v := range vs {
		need = need || (v.Project.MkDocs != nil && v.Project.MkDocs.Mermaid)
	}
	if !need {
		return nil
	}
	src, why := mermaidJS(ctx, tools, logger)
	if src == "" {
		log.Warnf(logger, "%s", why)
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("mermaid: %w", err)
	}
	return atomicfile.Write(filepath.Join(out, "js", "mermaid.min.js"), data)
}

// iconsNotInstalled is the kind of MkDocs syntax Translate leaves as text
// when no icon set is installed.
const iconsNotInstalled = "emoji icon (not installed)"

// icons are the emoji extension's icon sets: those `make site-tools`
// installed, else (unless tools is Off) those in kbook's sitetools
// store; nil when neither has them.
func icons(tools sitetools.Mode) markdown.IconSource {
	if tools.Installed() {
		if src := markdown.NPMIcons(markdown.DefaultNPMDir()); src != nil || !tools.Fetches() {
			return src
		}
	}
	if dirs, ok := (&sitetools.Client{}).CachedIcons(); ok {
		return markdown.PackageIcons(dirs)
	}
	return nil
}

// NeedsIcons reports whether p's pages use icons of the emoji extension
// that no installed icon set gave them (FetchIcons can get them).
func NeedsIcons(p *Project) bool {
	return p.MkDocs != nil && p.MkDocs.Unknown[iconsNotInstalled] > 0
}

// FetchIcons fetches the icon sets into kbook's sitetools store, as
// mermaid is fetched, reporting progress to logger; false (and a warning)
// when tools is Off or the fetch failed: the icons then stay as text.
func FetchIcons(ctx context.Context, tools sitetools.Mode, logger log.Logger) bool {
	if !tools.Fetches() {
		return false
	}
	if _, err := (&sitetools.Client{Log: logger}).Icons(ctx); err != nil {
		log.Warnf(logger, "icons: %v", err)
		return false
	}
	return true
}

// mermaidJS is mermaid's browser bundle, as installMermaid says, or "" and
// why not.
func mermaidJS(ctx context.Context, tools sitetools.Mode, logger log.Logger) (string, string) {
	if tools.Installed() {
		if src := markdown.MermaidJS(markdown.DefaultNPMDir()); src != "" || !tools.Fetches() {
			return src, "mermaid is not installed (make site-tools installs it into ~/.cache/kbook/npm; --site-tools off: kbook fetches nothing): diagrams show as their source"
		}
	}
	src, err := (&sitetools.Client{Log: logger}).MermaidPath(ctx)
	if err != nil {
		return "", "diagrams: " + err.Error()
	}
	return src, ""
}
