package livereload

import (
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// listenAddr is the address a server listens on: a missing host is
// 127.0.0.1, never every interface (net.Listen reads ":1313" as all of
// them); a server reachable from other machines is asked for by name
// (0.0.0.0, ::, an interface's address).
func listenAddr(addr string) string {
	if addr == "" {
		return "127.0.0.1:1313"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "" {
		return addr
	}
	return net.JoinHostPort("127.0.0.1", port)
}

// sitePath maps a request's (decoded) URL path to a file below dir, and
// reports false for one that could leave it: a ".." segment, a backslash
// (a separator on Windows), a NUL, or a path that resolves through a
// symbolic link to outside dir. Percent-encoding is undone once, by
// net/http, before the check: "%2e%2e" is "..", refused; "%252e%252e" is
// the file name "%2e%2e", looked up in dir and not found.
func sitePath(dir, urlPath string) (string, bool) {
	if strings.ContainsAny(urlPath, "\\\x00") {
		return "", false
	}
	for _, seg := range strings.Split(urlPath, "/") {
		if seg == ".." {
			return "", false
		}
	}
	p := filepath.Join(dir, filepath.FromSlash(path.Clean("/"+urlPath)))
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		// Missing: nothing to leave dir through.
		return p, true
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return p, true
}

// localOnly refuses requests that name the server by a host it does not
// answer to (DNS rebinding: a page of evil.example whose name resolves to
// 127.0.0.1 sends "Host: evil.example:1313"), and event-stream requests
// from a page of another origin. It answers to localhost (and
// *.localhost), to any IP address literal (a rebinding attack needs a
// name) and to the host the server was asked to bind.
func localOnly(bind string, events string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowedHost(r.Host, bind) {
			http.Error(w, "kbook serve answers to localhost only: Host "+r.Host+" refused", http.StatusForbidden)
			return
		}
		if r.URL.Path == events {
			if o := r.Header.Get("Origin"); o != "" && !sameOrigin(o, r.Host, bind) {
				http.Error(w, "kbook serve's event stream is for its own pages: Origin "+o+" refused", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// allowedHost reports whether a Host header names this server.
func allowedHost(hostport, bind string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	switch {
	case host == "":
		return false
	case host == "localhost" || strings.HasSuffix(host, ".localhost"):
		return true
	case net.ParseIP(host) != nil:
		return true
	}
	return bind != "" && strings.EqualFold(host, strings.Trim(bind, "[]"))
}

// sameOrigin reports whether an Origin header is one of this server's
// pages: http, a host it answers to, and the port of the request's Host.
func sameOrigin(origin, hostport, bind string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || !allowedHost(u.Host, bind) {
		return false
	}
	_, want, _ := net.SplitHostPort(hostport)
	return u.Port() == want
}

// isFile reports whether p exists and is a file, or a folder with an
// index.html.
func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && (!fi.IsDir() || exists(filepath.Join(p, "index.html")))
}
