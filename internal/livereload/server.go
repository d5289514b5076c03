package livereload

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// EventsPath is where browsers listen for reload and error events.
const EventsPath = "/__kbook/events"

// BuildFunc builds the site into the served directory; changed lists the
// files that triggered the build (nil for the first one).
type BuildFunc func(ctx context.Context, changed []string) error

// Options configure a Server.
type Options struct {
	// Root is the docs repository.
	Root string
	// Watch are the paths below Root to watch (directories recursively).
	Watch []string
	// Dir is the directory served.
	Dir string
	// Addr is the listen address (default 127.0.0.1:1313; a missing host,
	// ":1313", is 127.0.0.1 too, never every interface).
	Addr string
	// Build makes the site.
	Build BuildFunc
	// Debounce is the quiet time after a change before a build (default 150ms).
	Debounce time.Duration
	// Log receives one line per build.
	Log func(format string, args ...any)
}

// Server serves a site and rebuilds it on change.
type Server struct {
	opts    Options
	ln      net.Listener
	watcher *fsnotify.Watcher

	// kick wakes Serve for the builds Rebuild asks for (requested).
	kick chan struct{}

	mu      sync.Mutex
	clients map[chan event]bool
	lastErr string
	builds  int
	// good is the number of the last build that succeeded: a page that
	// connects learns it, and reloads if it missed a reload meanwhile.
	good      int
	requested []string
}

type event struct{ name, data string }

// New prepares a server: it listens and watches, but builds nothing yet.
func New(opts Options) (*Server, error) {
	opts.Addr = listenAddr(opts.Addr)
	if opts.Debounce == 0 {
		opts.Debounce = 150 * time.Millisecond
	}
	if opts.Log == nil {
		opts.Log = func(string, ...any) {}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	s := &Server{opts: opts, watcher: w, clients: map[chan event]bool{}, kick: make(chan struct{}, 1)}
	for _, p := range opts.Watch {
		if err := s.add(filepath.Join(opts.Root, p)); err != nil {
			w.Close()
			return nil, err
		}
	}
	// The root itself, for kbook.yaml and for watched directories that
	// do not exist yet.
	if err := w.Add(opts.Root); err != nil {
		w.Close()
		return nil, fmt.Errorf("watch %s: %w", opts.Root, err)
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("listen on %s: %w (is another kbook serve running? try --port)", opts.Addr, err)
	}
	s.ln = ln
	return s, nil
}

// URL is the address the site is served at.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/" }

// Rebuild asks for a build as though the files had changed, for changes
// that are no saves (a runbook's run finished); open pages reload after it.
// It does not wait.
func (s *Server) Rebuild(files ...string) {
	s.mu.Lock()
	s.requested = append(s.requested, files...)
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// add watches a directory tree; a missing path is ignored (the root watch
// sees it appear).
func (s *Server) add(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return nil
	}
	return filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != path && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if err := s.watcher.Add(p); err != nil {
				return fmt.Errorf("watch %s: %w", p, err)
			}
		}
		return nil
	})
}

// Close releases the listener and the watches of a server whose Serve
// will not be called.
func (s *Server) Close() {
	s.ln.Close()
	s.watcher.Close()
}

// Serve builds the site, serves it and rebuilds on change until ctx ends.
func (s *Server) Serve(ctx context.Context) error {
	defer s.watcher.Close()
	s.build(ctx, nil, false)
	srv := &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(s.ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		s.closeClients()
		_ = srv.Shutdown(sctx)
	}()

	var (
		pending = map[string]bool{}
		timer   *time.Timer
		fire    <-chan time.Time
	)
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-errc:
			if errors.Is(err, http.ErrServerClosed) {
				return nil
			}
			return err
		case err, ok := <-s.watcher.Errors:
			if ok {
				s.opts.Log("watch: %v", err)
			}
		case ev, ok := <-s.watcher.Events:
			if !ok {
				return nil
			}
			if !s.relevant(ev) {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					_ = s.add(ev.Name)
				}
			}
			pending[ev.Name] = true
			if timer == nil {
				timer = time.NewTimer(s.opts.Debounce)
			} else {
				timer.Reset(s.opts.Debounce)
			}
			fire = timer.C
		case <-s.kick:
			s.mu.Lock()
			changed := s.requested
			s.requested = nil
			s.mu.Unlock()
			s.build(ctx, changed, true)
		case <-fire:
			fire = nil
			var changed []string
			for p := range pending {
				changed = append(changed, p)
			}
			pending = map[string]bool{}
			s.build(ctx, changed, true)
		}
	}
}

// relevant filters out editor temp files and paths outside the watch list.
func (s *Server) relevant(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return false
	}
	if TempFile(filepath.Base(ev.Name)) {
		return false
	}
	rel, err := filepath.Rel(s.opts.Root, ev.Name)
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	if rel == "kbook.yaml" {
		return true
	}
	for _, w := range s.opts.Watch {
		if rel == w || strings.HasPrefix(rel, w+"/") {
			return true
		}
	}
	return false
}

// TempFile reports whether a file name is an editor's temporary or backup
// file (vim, emacs, JetBrains, VS Code, sed -i), which never triggers a build.
func TempFile(name string) bool {
	switch {
	case strings.HasSuffix(name, "~"),
		strings.HasSuffix(name, ".swp"), strings.HasSuffix(name, ".swx"), strings.HasSuffix(name, ".swo"),
		strings.HasPrefix(name, ".#"),
		strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#"),
		name == "4913",
		strings.HasSuffix(name, ".tmp"), strings.HasSuffix(name, "___jb_tmp___"), strings.HasSuffix(name, "___jb_old___"),
		strings.HasPrefix(name, ".goutputstream-"),
		strings.HasPrefix(name, "sed") && len(name) == 9 && !strings.Contains(name, "."):
		return true
	}
	return false
}

// build runs a build; reload tells open pages to reload after a good one.
func (s *Server) build(ctx context.Context, changed []string, reload bool) {
	start := time.Now()
	err := s.opts.Build(ctx, changed)
	if ctx.Err() != nil {
		return
	}
	s.mu.Lock()
	s.builds++
	n := s.builds
	if err != nil {
		s.lastErr = err.Error()
	} else {
		s.lastErr = ""
		s.good = n
	}
	s.mu.Unlock()
	if err != nil {
		s.opts.Log("build %d failed in %s: %v", n, time.Since(start).Round(time.Millisecond), err)
		s.broadcast(event{"failed", err.Error()})
		return
	}
	s.opts.Log("build %d done in %s", n, time.Since(start).Round(time.Millisecond))
	if reload {
		s.broadcast(event{"reload", fmt.Sprint(n)})
	}
}

func (s *Server) broadcast(e event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.clients {
		select {
		case c <- e:
		default:
		}
	}
}

func (s *Server) closeClients() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.clients {
		close(c)
		delete(s.clients, c)
	}
}

// handler answers to local names only (localOnly): a page elsewhere on
// the web cannot read the site or its event stream through DNS rebinding.
func (s *Server) handler() http.Handler {
	bind, _, _ := net.SplitHostPort(s.opts.Addr)
	mux := http.NewServeMux()
	mux.HandleFunc(EventsPath, s.events)
	files := Static(s.opts.Dir)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		lastErr := s.lastErr
		s.mu.Unlock()
		if lastErr != "" && !found(s.opts.Dir, r.URL.Path) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, errorPage, html.EscapeString(lastErr), EventsPath)
			return
		}
		files.ServeHTTP(w, r)
	})
	return localOnly(bind, EventsPath, mux)
}

// Static serves a built site as a static host does: files as they are,
// a folder's index.html, and a missing page answered with the 404 page of
// its version (else the root one) and status 404. Nothing is cached, and
// no request reads outside dir (sitePath): "..", encoded or not, a
// backslash and a symbolic link out of dir are answered 404.
func Static(dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if !found(dir, r.URL.Path) {
			notFound(dir, w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}

func found(dir, urlPath string) bool {
	p, ok := sitePath(dir, urlPath)
	return ok && isFile(p)
}

// notFound answers with the 404 page of the version the path names, else
// the root one; the version folder is looked up as sitePath allows (a
// request for "/../x" once read dir's parent's 404.html).
func notFound(dir string, w http.ResponseWriter, r *http.Request) {
	pages := []string{filepath.Join(dir, "404.html")}
	if first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/"); first != "" {
		if p, ok := sitePath(dir, "/"+first+"/404.html"); ok {
			pages = append([]string{p}, pages...)
		}
	}
	for _, p := range pages {
		if data, err := os.ReadFile(p); err == nil {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			if r.Method != http.MethodHead {
				_, _ = w.Write(data)
			}
			return
		}
	}
	http.NotFound(w, r)
}

// errorPage stands in for a site that did not build; it reloads when a
// build succeeds.
const errorPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Build failed · kbook serve</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:40px;color:#1f2328}pre{background:#2d0b0e;color:#ffd7d5;padding:16px;border-radius:8px;white-space:pre-wrap}</style></head>
<body><h1>The site did not build</h1><pre id="kb-error">%s</pre><p>Fix the file and save: this page reloads by itself.</p>
<script>new EventSource(%q).addEventListener("reload",function(){location.reload()})</script></body></html>`

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// events streams server-sent events: "reload" after a good build,
// "failed" with the error after a bad one (and at connect while the last
// build failed).
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	c := make(chan event, 4)
	s.mu.Lock()
	s.clients[c] = true
	lastErr, good := s.lastErr, s.good
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.clients[c] {
			delete(s.clients, c)
		}
		s.mu.Unlock()
	}()
	fmt.Fprint(w, "retry: 500\n\n")
	writeEvent(w, event{"built", fmt.Sprint(good)})
	if lastErr != "" {
		writeEvent(w, event{"failed", lastErr})
	}
	fl.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case e, ok := <-c:
			if !ok {
				return
			}
			writeEvent(w, e)
			fl.Flush()
		}
	}
}

func writeEvent(w http.ResponseWriter, e event) {
	fmt.Fprintf(w, "event: %s\n", e.name)
	for _, l := range strings.Split(e.data, "\n") {
		fmt.Fprintf(w, "data: %s\n", l)
	}
	fmt.Fprint(w, "\n")
}
