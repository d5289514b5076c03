package site

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bep/logg"
	"github.com/gohugoio/hugo/common/herrors"
	"github.com/gohugoio/hugo/common/loggers"
	"github.com/gohugoio/hugo/config"
	"github.com/gohugoio/hugo/config/allconfig"
	"github.com/gohugoio/hugo/deps"
	"github.com/gohugoio/hugo/hugofs"
	"github.com/gohugoio/hugo/hugolib"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/proc"
	"github.com/spf13/afero"
)

// HugoVersion is the Hugo release kbook builds sites with (go.mod pins it).
const HugoVersion = "v0.165.0"

// DefaultHugoTimeout bounds one Hugo build when Options.HugoTimeout is 0.
// A site of a few hundred pages builds in seconds; a build that takes
// this long is stuck.
const DefaultHugoTimeout = 2 * time.Minute

// ChildStarter starts a process that dies with kbook and is recorded until
// it exits; *proc.Registry is one.
type ChildStarter interface {
	Start(cmd *exec.Cmd, name string) (*proc.Child, error)
}

// hugoChildEnv marks the process that RunHugoChild turns into a Hugo build.
const hugoChildEnv = "KBOOK_HUGO_CHILD"

// canIsolate is set by RunHugoChild: this executable builds Hugo sites
// when started with hugoChildEnv, so builds run in a child process.
var canIsolate atomic.Bool

// RunHugoChild makes this executable able to run Hugo builds in a child
// process, and is that child when started so: it builds, writes its
// result and exits. Call it first thing in main (and in the TestMain of a
// test binary that builds sites); without the call builds run in-process.
//
// Hugo v0.165.0 can hang forever when many pages fail to render (its page
// walker blocks on a send once the workers stopped at ten errors), so a
// build runs where a stuck one can be killed with its process group.
func RunHugoChild() {
	canIsolate.Store(true)
	if os.Getenv(hugoChildEnv) == "" {
		return
	}
	os.Unsetenv(hugoChildEnv)
	tuneHugoGC()
	code := 0
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "kbook hugo child: want DIR PUBLISHDIR RESULTFILE")
		os.Exit(2)
	}
	tokens := os.Getenv(highlightCacheEnv)
	var hc *tokenCache
	if tokens != "" {
		hc = loadTokenCache(tokens)
		cacheLexers(hc)
	}
	rep := buildHugo(afero.NewOsFs(), os.Args[1], os.Args[2])
	if hc != nil && rep.Failure == nil {
		_ = hc.save(tokens) // a cache: the next build lexes again
	}
	data, _ := json.Marshal(rep)
	if err := os.WriteFile(os.Args[3], data, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "kbook hugo child:", err)
		code = 1
	}
	os.Exit(code)
}

// hugoReply is what one Hugo build said: its warnings (as Hugo wrote
// them) and its failure, if any.
type hugoReply struct {
	Warnings []string     `json:"warnings,omitempty"`
	Failure  *hugoFailure `json:"failure,omitempty"`
}

// hugoFailure is a Hugo error reduced to what survives a process
// boundary: the message, the innermost cause, and the file positions
// Hugo recorded, outermost first.
type hugoFailure struct {
	Msg       string    `json:"msg"`
	Cause     string    `json:"cause"`
	Positions []hugoPos `json:"positions,omitempty"`
}

type hugoPos struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func failureOf(err error) *hugoFailure {
	f := &hugoFailure{Msg: err.Error(), Cause: herrors.Cause(err).Error()}
	for _, fe := range herrors.UnwrapFileErrors(err) {
		pos := fe.Position()
		f.Positions = append(f.Positions, hugoPos{File: pos.Filename, Line: pos.LineNumber})
	}
	return f
}

// buildHugo builds the Hugo project in dir into publishDir, in this
// process, reading and writing through afs.
func buildHugo(afs afero.Fs, dir, publishDir string) (rep hugoReply) {
	defer func() {
		if r := recover(); r != nil {
			rep = hugoReply{Failure: &hugoFailure{Msg: fmt.Sprintf("hugo panicked: %v", r), Cause: fmt.Sprint(r)}}
		}
	}()
	var logBuf bytes.Buffer
	logger := loggers.New(loggers.Options{
		Level:         logg.LevelWarn,
		StdOut:        &logBuf,
		StdErr:        &logBuf,
		DistinctLevel: logg.LevelWarn,
		StoreErrors:   true,
	})
	flags := config.New()
	flags.Set("workingDir", dir)
	flags.Set("publishDir", publishDir)
	flags.Set("cacheDir", dir+"/.cache")
	flags.Set("quiet", true)
	res, err := allconfig.LoadConfig(allconfig.ConfigSourceDescriptor{
		Flags:    flags,
		Fs:       afs,
		Filename: dir + "/hugo.json",
		Logger:   logger,
		Environ:  []string{"HUGO_ENVIRONMENT=production"},
	})
	if err != nil {
		return hugoReply{Failure: failureOf(err)}
	}
	fs := hugofs.NewFrom(afs, res.LoadingInfo.BaseConfig)
	h, err := hugolib.NewHugoSites(deps.DepsCfg{Configs: res, Fs: fs, LogLevel: logger.Level(), StdOut: &logBuf, StdErr: &logBuf})
	if err != nil {
		return hugoReply{Failure: failureOf(err)}
	}
	defer h.Close()
	if err := h.Build(hugolib.BuildCfg{}); err != nil {
		return hugoReply{Failure: failureOf(err)}
	}
	if errs := logger.Errors(); errs != "" {
		return hugoReply{Failure: failureOf(errors.New(errs))}
	}
	for _, l := range strings.Split(strings.TrimSpace(logBuf.String()), "\n") {
		if strings.TrimSpace(l) != "" {
			rep.Warnings = append(rep.Warnings, l)
		}
	}
	return rep
}

// runHugo builds the generated Hugo project into publishDir within
// timeout: in a child process when this executable can be one (see
// RunHugoChild) and children is set, else in-process. Warnings are
// returned with paths mapped to their sources; an error names the
// source file and line where Hugo reports one.
func runHugo(ctx context.Context, g *generated, publishDir string, children ChildStarter, timeout time.Duration) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // interrupted before Hugo started: it never does
	}
	if timeout <= 0 {
		timeout = DefaultHugoTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var (
		rep hugoReply
		err error
	)
	if children != nil && canIsolate.Load() {
		rep, err = hugoChild(ctx, g.dir, publishDir, children, renderWorkers(g.sources), highlightCacheFile(g.roots))
	} else {
		rep, err = hugoInProcess(ctx, g.dir, publishDir)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("hugo: the build did not end within %s and was stopped (--hugo-timeout sets the limit)", timeout)
	}
	if err != nil {
		return nil, err
	}
	if rep.Failure != nil {
		return nil, g.hugoError(rep.Failure)
	}
	warnings := make([]string, len(rep.Warnings))
	for i, w := range rep.Warnings {
		warnings[i] = g.mapPaths(w)
	}
	return warnings, nil
}

// hugoChild runs the build in a child process of this executable, killed
// with its process group when ctx ends first; tokens is the file it keeps
// the code blocks' tokens in (tokenCache).
func hugoChild(ctx context.Context, dir, publishDir string, children ChildStarter, workers int, tokens string) (hugoReply, error) {
	exe, err := os.Executable()
	if err != nil {
		return hugoReply{}, fmt.Errorf("hugo: find kbook's executable: %w", err)
	}
	result := filepath.Join(dir, "hugo-result.json")
	cmd := exec.Command(exe, dir, publishDir, result)
	cmd.Env = append(os.Environ(), hugoChildEnv+"=1", fmt.Sprintf("%s=%d", workersEnv, workers), highlightCacheEnv+"="+tokens)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	child, err := children.Start(cmd, "hugo")
	if err != nil {
		return hugoReply{}, fmt.Errorf("hugo: start the build process: %w", err)
	}
	select {
	case <-child.Done():
	case <-ctx.Done():
		_ = child.Stop(0)
		return hugoReply{}, ctx.Err()
	}
	data, rerr := os.ReadFile(result)
	if werr := child.Wait(); werr != nil || rerr != nil {
		return hugoReply{}, fmt.Errorf("hugo: the build process failed (%v): %s", errors.Join(werr, rerr), strings.TrimSpace(stderr.String()))
	}
	var rep hugoReply
	if err := json.Unmarshal(data, &rep); err != nil {
		return hugoReply{}, fmt.Errorf("hugo: read the build's result: %w", err)
	}
	return rep, nil
}

// hugoInProcess runs the build in this process. Hugo takes no context:
// when ctx ends first the build is abandoned to end on its own, but fenced
// off from the disk first (see fence), so that nothing it does after this
// returns - the caller then removes the staging folder - writes a file.
//
// Hugo sizes its render queue by workersEnv in the process's environment,
// which a library does not change (kbook's own builds run in a child,
// whose environment hugoChild gives it): a program that builds in-process
// sets it itself, to at least renderWorkers of the pages, or a build with
// many failing pages runs into its timeout instead of returning their
// error.
func hugoInProcess(ctx context.Context, dir, publishDir string) (hugoReply, error) {
	if err := ctx.Err(); err != nil {
		return hugoReply{}, err
	}
	fs := newFence(afero.NewOsFs())
	if hook := testHookHugoWrote.Load(); hook != nil {
		fs.wrote = *hook
	}
	done := make(chan hugoReply, 1)
	inProcess.Add(1)
	go func() {
		defer inProcess.Done()
		done <- buildHugo(fs, dir, publishDir)
	}()
	select {
	case rep := <-done:
		return rep, nil
	case <-ctx.Done():
		fs.close()
		return hugoReply{}, ctx.Err()
	}
}

// inProcess counts the in-process Hugo builds whose goroutine still runs
// (abandoned ones included): WaitInProcessBuilds waits for them.
var inProcess sync.WaitGroup

// testHookHugoWrote, set by tests, hears each file or folder an
// in-process build writes or makes.
var testHookHugoWrote atomic.Pointer[func(name string)]

// WaitInProcessBuilds waits until every Hugo build this process ran
// in-process has ended, those abandoned by an interrupted or timed-out
// Build included (which then wrote nothing after Render returned). Tests
// call it to check exactly that; a build stuck for ever makes it wait for
// ever.
func WaitInProcessBuilds() { inProcess.Wait() }

// workersEnv is the variable Hugo sizes its render workers by, and the
// queue of pages that feeds them.
const workersEnv = "HUGO_NUMWORKERMULTIPLIER"

// renderWorkers is the number of render workers a build of about pages
// pages needs to never hang: Hugo's page walker sends every page into a
// queue of that many entries, and when ten pages failed the workers stop
// reading it - a walker with more pages to send than the queue holds then
// blocks forever (Hugo v0.165.0, hugolib/site_render.go renderPages). A
// queue that holds every page (sections included, at most one per page)
// never blocks; the workers are goroutines, the CPUs still bound the work.
func renderWorkers(pages int) int {
	return max(runtime.NumCPU(), 2*pages+64)
}

var hugoPosRe = regexp.MustCompile(`"?(/[^":\s]+\.(?:md|html|json|toml|yaml))"?:(\d+)(?::(\d+))?`)

// renderOf names the page Hugo was rendering when it failed.
var renderOf = regexp.MustCompile(`render of "([^"]+)" failed`)

// hugoError turns a Hugo failure into a located *findings.InputError at
// the user's source: the innermost position that is a file of the docs
// repository, else the page
// being rendered when a template of the theme failed, with the innermost
// cause; theme files are named by their place in the theme, never by the
// build's temporary folder.
func (g *generated) hugoError(f *hugoFailure) error {
	msg := g.mapPaths(f.Cause)
	var theme *hugoPos
	for i := len(f.Positions) - 1; i >= 0; i-- {
		pos := f.Positions[i]
		if pos.File == "" || pos.Line <= 0 {
			continue
		}
		if g.isSource(pos.File) {
			file, line := g.source(pos.File, pos.Line)
			return &findings.InputError{File: file, Line: line, Err: errors.New(msg)}
		}
		if theme == nil {
			theme = &f.Positions[i]
		}
	}
	if theme != nil {
		file, line := g.source(theme.File, theme.Line)
		where := fmt.Sprintf("%s:%d: ", file, line)
		if !strings.Contains(msg, where) && !strings.Contains(msg, fmt.Sprintf("%s:%d", file, line)) {
			msg = where + msg
		}
	}
	if m := renderOf.FindStringSubmatch(f.Msg); m != nil {
		if g.isSource(m[1]) {
			file, _ := g.source(m[1], 1)
			return &findings.InputError{File: file, Line: 1, Err: errors.New(msg)}
		}
		if file := g.pageFile(m[1]); file != "" {
			return &findings.InputError{File: file, Line: 1, Err: errors.New(msg)}
		}
	}
	if theme != nil {
		file, line := g.source(theme.File, theme.Line)
		return &findings.InputError{File: file, Line: line, Err: errors.New(strings.TrimPrefix(msg, fmt.Sprintf("%s:%d: ", file, line)))}
	}
	full := g.mapPaths(f.Msg)
	if m := hugoPosRe.FindStringSubmatch(full); m != nil {
		line, _ := strconv.Atoi(m[2])
		return &findings.InputError{File: m[1], Line: line, Err: errors.New(strings.TrimLeft(strings.Replace(full, m[0], "", 1), ": "))}
	}
	return fmt.Errorf("hugo: %s", full)
}

// isSource reports whether file is a page kbook generated or a file of a
// docs repository (not the theme, not Hugo's own).
func (g *generated) isSource(file string) bool {
	if _, ok := g.pages[file]; ok {
		return true
	}
	for _, r := range g.roots {
		if strings.HasPrefix(file, r) {
			return true
		}
	}
	return false
}

// pageFile is the docs-relative source of the page Hugo calls path
// ("/a/b" for content/a/b.md, "/a" for content/a/_index.md), "" if none.
func (g *generated) pageFile(path string) string {
	return g.byURL[strings.ToLower(strings.Trim(path, "/"))]
}

// source maps a file Hugo read and a line in it to the docs-relative
// source and its line; a theme file is named "theme layouts/...".
func (g *generated) source(file string, line int) (string, int) {
	if ref, ok := g.pages[file]; ok {
		return ref.file, ref.line(line)
	}
	for _, r := range g.roots {
		if rel, found := strings.CutPrefix(file, r); found {
			return filepath.ToSlash(rel), line
		}
	}
	if rel, found := strings.CutPrefix(file, g.dir+"/themes/kbook/"); found {
		return "theme " + rel, line
	}
	if rel, found := strings.CutPrefix(file, g.dir+"/"); found {
		return "(kbook's build) " + rel, line
	}
	return file, line
}

// mapPaths rewrites generated file paths with line numbers in s to the
// sources they were made from.
func (g *generated) mapPaths(s string) string {
	s = hugoPosRe.ReplaceAllStringFunc(s, func(m string) string {
		sm := hugoPosRe.FindStringSubmatch(m)
		line, _ := strconv.Atoi(sm[2])
		file, line := g.source(sm[1], line)
		return fmt.Sprintf("%s:%d", file, line)
	})
	// Paths without a line ("render of \"/abs/content/a.md\"").
	for file, ref := range g.pages {
		s = strings.ReplaceAll(s, file, ref.file)
	}
	for _, r := range g.roots {
		s = strings.ReplaceAll(s, r, "")
	}
	s = strings.ReplaceAll(s, g.dir+"/themes/kbook/", "theme ")
	return strings.ReplaceAll(s, g.dir+"/", "(kbook's build) ")
}
