package helmrepo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/repo"
)

// MaxChartSize bounds an uploaded chart archive.
const MaxChartSize = 32 << 20

// Server is a running repository.
type Server struct {
	dir string
	url string
	srv *http.Server
	ln  net.Listener

	mu    sync.Mutex
	index *repo.IndexFile
}

// Start serves the repository in dir (created if needed; charts already
// there are indexed) on a free port of 127.0.0.1.
func Start(dir string) (*Server, error) { return StartOn(dir, "127.0.0.1") }

// StartOn is Start listening on host (an IP address) instead: where a
// cluster's pods reach this machine, e.g. a kind network's gateway, which
// this machine reaches too.
func StartOn(dir, host string) (*Server, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("helm repository: %w", err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, fmt.Errorf("helm repository: %w", err)
	}
	s := &Server{dir: dir, ln: ln, url: "http://" + ln.Addr().String()}
	if err := s.reindex(); err != nil {
		ln.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /index.yaml", s.serveIndex)
	mux.HandleFunc("GET /charts/{file}", s.serveChart)
	mux.HandleFunc("POST /api/charts", s.upload)
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// URL is the repository's base URL (http://127.0.0.1:PORT).
func (s *Server) URL() string { return s.url }

// Dir is the directory holding the charts.
func (s *Server) Dir() string { return s.dir }

// Close stops serving.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.srv.Shutdown(ctx)
}

func (s *Server) reindex() error {
	idx, err := repo.IndexDirectory(filepath.Join(s.dir), s.url+"/charts")
	if err != nil {
		return fmt.Errorf("helm repository: index %s: %w", s.dir, err)
	}
	idx.SortEntries()
	s.mu.Lock()
	s.index = idx
	s.mu.Unlock()
	return nil
}

// Add stores a packaged chart (a .tgz) and indexes it. A chart of the
// same name and version is replaced only if its content is the same:
// Helm repositories treat versions as immutable, and so does
// source-controller's cache.
func (s *Server) Add(archive []byte) (*chart.Metadata, error) {
	ch, err := loader.LoadArchive(bytes.NewReader(archive))
	if err != nil {
		return nil, fmt.Errorf("not a chart archive: %w", err)
	}
	if err := ch.Validate(); err != nil {
		return nil, fmt.Errorf("chart %s: %w", ch.Name(), err)
	}
	name := fmt.Sprintf("%s-%s.tgz", ch.Name(), ch.Metadata.Version)
	path := filepath.Join(s.dir, name)
	if old, err := os.ReadFile(path); err == nil {
		if same, err := sameContent(old, ch); err == nil && same {
			return ch.Metadata, nil
		}
		return nil, fmt.Errorf("%w: %s %s is already in the repository with other content: bump the chart version", ErrExists, ch.Name(), ch.Metadata.Version)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, archive, 0o644); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, err
	}
	return ch.Metadata, s.reindex()
}

// AddChart packages ch and adds it.
func (s *Server) AddChart(ch *chart.Chart) (*chart.Metadata, error) {
	archive, err := Package(ch)
	if err != nil {
		return nil, err
	}
	return s.Add(archive)
}

// ErrExists means a chart version is taken by other content.
var ErrExists = errors.New("chart version exists")

// Package returns the .tgz archive of a chart.
func Package(ch *chart.Chart) ([]byte, error) {
	dir, err := os.MkdirTemp("", "kbook-chart-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	p, err := chartutil.Save(ch, dir)
	if err != nil {
		return nil, fmt.Errorf("package chart %s: %w", ch.Name(), err)
	}
	return os.ReadFile(p)
}

// sameContent compares the files of an archive with a loaded chart:
// packaging stamps every archive with the time, so bytes differ.
func sameContent(archive []byte, ch *chart.Chart) (bool, error) {
	old, err := loader.LoadArchive(bytes.NewReader(archive))
	if err != nil {
		return false, err
	}
	return contentDigest(old) == contentDigest(ch), nil
}

func contentDigest(ch *chart.Chart) string {
	files := append([]*chart.File(nil), ch.Raw...)
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s %d\n", f.Name, len(f.Data))
		h.Write(f.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (s *Server) serveIndex(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	idx := s.index
	s.mu.Unlock()
	tmp, err := os.CreateTemp("", "kbook-index-*.yaml")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if err := idx.WriteFile(tmp.Name(), 0o644); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	data, err := os.ReadFile(tmp.Name())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/x-yaml")
	_, _ = w.Write(data)
}

func (s *Server) serveChart(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	if strings.ContainsAny(name, `/\`) || !strings.HasSuffix(name, ".tgz") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/gzip")
	http.ServeFile(w, r, filepath.Join(s.dir, name))
}

func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(io.LimitReader(r.Body, MaxChartSize+1))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if len(data) > MaxChartSize {
		http.Error(w, "chart archive too large", http.StatusRequestEntityTooLarge)
		return
	}
	md, err := s.Add(data)
	switch {
	case errors.Is(err, ErrExists):
		http.Error(w, err.Error(), http.StatusConflict)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	fmt.Fprintf(w, "{\"saved\":true,\"name\":%q,\"version\":%q}\n", md.Name, md.Version)
}

// Upload sends a chart archive to the repository at url (POST
// /api/charts), as `kbook template publish` does from another process.
func Upload(ctx context.Context, url string, archive []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(url, "/")+"/api/charts", bytes.NewReader(archive))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("upload to the kbook Helm repository %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return fmt.Errorf("upload to %s: %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
