package serve

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/k0rdent/kbook/internal/docsrepo"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/livereload"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/run"
	"github.com/k0rdent/kbook/internal/site"
	"github.com/k0rdent/kbook/internal/sitebuild"
	"github.com/k0rdent/kbook/internal/sitetools"
)

// Options are kbook serve's settings.
type Options struct {
	// Dir is the docs repository (default ".").
	Dir string
	// Version is the version name the served site shows.
	Version string
	// Bind and Port are where to listen (port 0: any free one).
	Bind string
	Port int
	// Run runs the runbooks at start and each again when it changes,
	// with RunOptions (paths and, unless CRDsGiven, CRDs the project's).
	Run         bool
	RunOptions  run.Options
	CRDsGiven   bool
	HugoTimeout time.Duration
	// SiteTools chooses where the icon sets and mermaid come from
	// (--site-tools; the zero value is auto). Serve fetches no Pagefind:
	// search is there when kbook build fetched it or it is installed.
	SiteTools sitetools.Mode
	// OpenProcs opens the registry that records the served folder and the
	// servers (nil: untracked).
	OpenProcs proc.Opener
	// Logger receives the rebuilds, the runs and each build's warnings.
	Logger log.Logger
	// Out receives the address served.
	log.IOStreams
}

// Serve builds the site of o.Dir into a folder of its own and serves it,
// rebuilding and reloading open pages on every save, until ctx ends. Bad
// input (a version name, a port, a busy address, a project that does not
// load) is a findings.InputError before anything is served.
func Serve(ctx context.Context, o Options) error {
	o.Dir, o.Logger, o.IOStreams = cmp.Or(o.Dir, "."), log.Or(o.Logger), o.OrDiscard()
	if err := sitebuild.CheckVersion(o.Version); err != nil {
		return err
	}
	procs, closeProcs := o.OpenProcs.Open(o.Logger)
	defer closeProcs()
	if o.Port < 0 || o.Port > 65535 {
		return findings.Input(fmt.Errorf("--port %d: want 0 to 65535 (0: any free port)", o.Port))
	}
	tools, err := o.SiteTools.Resolve()
	if err != nil {
		return findings.Input(err)
	}
	o.SiteTools = tools
	proj, err := site.Load(o.Dir, site.WithSiteTools(o.SiteTools))
	if err != nil {
		return findings.Input(docsrepo.ErrorUnder(o.Dir, err))
	}
	// The served folder lives in kbook's process registry: the next kbook
	// removes it if this one is killed.
	out, err := procs.MkdirTemp("kbook-serve-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)

	search := site.FindPagefind(o.Dir)
	logf := func(format string, a ...any) { o.Logger.Infof("kbook serve: "+format, a...) }
	live := &Live{Dir: o.Dir, Version: o.Version, Out: out, Search: search, LiveReload: livereload.EventsPath, Dirs: procs, HugoTimeout: o.HugoTimeout, Tools: o.SiteTools, Logger: o.Logger}
	ro := run.ForProject(o.RunOptions, proj.Dir, proj.Config.Run.CRDs, proj.RunbookPaths(), o.CRDsGiven, procs)
	if o.Run {
		live.Run = func(ctx context.Context, files []string) (*report.Report, error) {
			ro := ro
			ro.Paths, ro.CacheOnly = files, false
			rep, _, err := run.ForSite(ctx, ro)
			return rep, err
		}
	}
	// The port is taken before the runbooks run: a busy one fails at once.
	srv, err := livereload.New(livereload.Options{
		Root:  o.Dir,
		Watch: []string{proj.Config.Content, proj.Config.Runbooks, proj.Config.Site},
		Dir:   out,
		Addr:  net.JoinHostPort(o.Bind, strconv.Itoa(o.Port)),
		Build: func(ctx context.Context, changed []string) error {
			return docsrepo.ErrorUnder(o.Dir, live.Build(ctx, changed))
		},
		Log: logf,
	})
	if err != nil {
		return findings.Input(err)
	}
	var rep *report.Report
	if len(proj.Runbooks) > 0 {
		ro.CacheOnly = !o.Run
		if rep, _, err = run.ForSite(ctx, ro); err != nil {
			srv.Close()
			return err
		}
	}
	live.SetResults(rep)
	live.Rebuild = func() { srv.Rebuild() }
	defer live.Wait()
	if !search.Available() {
		logf("note: %s", search.Why)
	}
	fmt.Fprintf(o.Out, "kbook serve: serving %s on %s (Ctrl-C to stop)\n", o.Dir, srv.URL())
	return srv.Serve(ctx)
}
