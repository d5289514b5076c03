package serve

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runbook"
	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/site"
	"github.com/k0rdent/kbook/internal/sitebuild"
	"github.com/k0rdent/kbook/internal/sitetools"
)

// Live is the site kbook serve shows: one version of a docs repository,
// built again on every change. With Run set, a runbook whose saved source
// has no result is run again in the background; when its result is in,
// Rebuild is called and the next build shows it.
type Live struct {
	// Dir is the docs repository.
	Dir string
	// Version is the version served (default next).
	Version string
	// Out is the folder the site is built into.
	Out string
	// Search, LiveReload and Dirs are passed to site.Render (see site.Options).
	Search     *site.Pagefind
	LiveReload string
	Dirs       site.DirTracker
	// HugoTimeout bounds each Hugo build (see site.Options).
	HugoTimeout time.Duration
	// Tools chooses where the icon sets and mermaid come from (see
	// site.Options).
	Tools sitetools.Mode
	// Run runs runbook files (paths as the changed list gives them) and
	// returns their results; nil: runbooks are never run.
	Run func(ctx context.Context, files []string) (*report.Report, error)
	// Rebuild asks for a build once a run's results are in.
	Rebuild func()
	// Logger receives each build's warnings (links, MkDocs, Hugo), as
	// kbook build prints them, and a line per run started and finished
	// ("kbook serve: ran ..."); nil discards them.
	Logger log.Logger

	mu      sync.Mutex
	results *report.Report
	// asked are the runbook sources (path and hash) already sent to Run:
	// each is run once, whatever the result.
	asked   map[string]bool
	queue   []string
	running bool
	// pending are the docs-relative paths queued or running.
	pending map[string]bool
	wg      sync.WaitGroup
}

// RunInProcess is a Live.Run that runs the runbook files with the runner
// in this process (kbook serve --run goes through kbook run instead, for
// its cluster flags and cache).
func RunInProcess(o runner.Options) func(ctx context.Context, files []string) (*report.Report, error) {
	return func(ctx context.Context, files []string) (*report.Report, error) {
		rbs, err := runbook.Load(files)
		if err != nil {
			return nil, err
		}
		r, err := runner.New(o)
		if err != nil {
			return nil, err
		}
		return r.Run(ctx, rbs), nil
	}
}

// SetResults sets the results the pages show (those of the first run).
func (l *Live) SetResults(r *report.Report) {
	l.mu.Lock()
	l.results = r
	l.mu.Unlock()
}

// Results are the results the pages show now.
func (l *Live) Results() *report.Report {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.results
}

// Build loads the repository, checks its links, queues the changed
// runbooks that have no result for their source yet, and builds the site
// with the results there are (a queued runbook's page says it changed since
// its last result until the run is done). It is a livereload.BuildFunc.
func (l *Live) Build(ctx context.Context, changed []string) error {
	p, err := site.Load(l.Dir, site.WithSiteTools(l.Tools))
	if err != nil {
		return err
	}
	name := l.Version
	if name == "" {
		name = site.NextVersion
	}
	v := &site.Version{Name: name, Project: p, Lastmod: site.Lastmod(l.Dir, p.Config.Content, p.Config.Runbooks)}
	if err := sitebuild.CheckLinks(p, l.Out, []*site.Version{v}, "", l.Logger); err != nil {
		return err
	}
	if l.Run != nil {
		l.enqueue(ctx, p, changed)
	}
	l.mu.Lock()
	v.Results = l.results
	v.Running = maps.Clone(l.pending)
	l.mu.Unlock()
	// kbook serve serves the site at its root, whatever kbook.yaml's
	// baseURL: the 404 page's <base> says so.
	_, err = site.Render(ctx, []*site.Version{v}, site.Options{Out: l.Out, BaseURL: "/", Search: l.Search, LiveReload: l.LiveReload, Dirs: l.Dirs, HugoTimeout: l.HugoTimeout, Tools: l.Tools, Logger: l.Logger})
	return err
}

// Wait waits for the runs started by Build to end (they end with the
// context Build was given).
func (l *Live) Wait() { l.wg.Wait() }

// enqueue queues the changed runbooks whose source has no result and was
// not run yet, and starts the worker.
func (l *Live) enqueue(ctx context.Context, p *site.Project, changed []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	have := site.ResultsByPath(&site.Version{Project: p, Results: l.results})
	if l.asked == nil {
		l.asked = map[string]bool{}
	}
	for _, c := range changed {
		rel, ok := relPath(p.Dir, c)
		if !ok {
			continue
		}
		rb := p.Runbook(rel)
		if rb == nil {
			continue
		}
		sum := runner.SourceSum(rb)
		if r := have[rel]; r != nil && r.SourceSHA256 == sum {
			continue
		}
		if key := rel + "@" + sum; !l.asked[key] {
			l.asked[key] = true
			l.queue = append(l.queue, c)
			if l.pending == nil {
				l.pending = map[string]bool{}
			}
			l.pending[rel] = true
		}
	}
	if len(l.queue) > 0 && !l.running {
		l.running = true
		l.wg.Add(1)
		go l.work(ctx)
	}
}

// work runs the queued runbooks, a batch at a time, until none are left.
func (l *Live) work(ctx context.Context) {
	defer l.wg.Done()
	for {
		l.mu.Lock()
		batch := l.queue
		l.queue = nil
		if len(batch) == 0 || ctx.Err() != nil {
			l.running = false
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
		names := strings.Join(batch, ", ")
		l.logf("running %s", names)
		r, err := l.Run(ctx, batch)
		l.mu.Lock()
		for _, f := range batch {
			if rel, ok := relPath(l.Dir, f); ok {
				delete(l.pending, rel)
			}
		}
		if err == nil && ctx.Err() == nil {
			l.results = mergeResults(l.Dir, l.results, r)
		}
		l.mu.Unlock()
		switch {
		case ctx.Err() != nil:
			continue // the loop's check ends it
		case err != nil:
			l.logf("run %s: %v", names, err)
		default:
			s := r.Summary()
			l.logf("ran %s: %d passed, %d failed, %d skipped", names, s.Passed, s.Failed, s.Skipped)
		}
		if l.Rebuild != nil {
			l.Rebuild()
		}
	}
}

// logf says what a run did, as kbook serve's other lines.
func (l *Live) logf(format string, args ...any) {
	if l.Logger != nil {
		l.Logger.Infof("kbook serve: "+format, args...)
	}
}

// relPath is file relative to the docs root, with slashes.
func relPath(dir, file string) (string, bool) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(absDir, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// mergeResults puts the runbooks of r in place of those with the same file
// in base (paths may be relative or absolute): the newer run wins even
// when its result came from the cache.
func mergeResults(dir string, base, r *report.Report) *report.Report {
	if base == nil {
		return r
	}
	key := func(p string) string {
		if rel, ok := relPath(dir, p); ok {
			return rel
		}
		return p
	}
	fresh := map[string]*report.Runbook{}
	for _, rb := range r.Runbooks {
		fresh[key(rb.Path)] = rb
	}
	out := *base
	out.Runbooks = nil
	for _, rb := range base.Runbooks {
		if n, ok := fresh[key(rb.Path)]; ok {
			delete(fresh, key(rb.Path))
			rb = n
		}
		out.Runbooks = append(out.Runbooks, rb)
	}
	for _, rb := range r.Runbooks {
		if _, ok := fresh[key(rb.Path)]; ok {
			out.Runbooks = append(out.Runbooks, rb)
		}
	}
	return &out
}
