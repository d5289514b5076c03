//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/k0rdent/kbook/internal/livereload"
)

// requests records what a page asks for while a test runs: a request
// that leaves the site (prefix), fails or is answered 4xx/5xx.
type requests struct {
	mu   sync.Mutex
	seen int
	bad  []string
	// allowed says a failure is expected (search from file://).
	allowed func(url string) bool
}

func watch(t *testing.T, ctx context.Context, prefix string) *requests {
	t.Helper()
	r := &requests{allowed: func(string) bool { return false }}
	urls := map[network.RequestID]string{}
	lctx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	if err := chromedp.Listen(lctx, func(ev any) {
		r.mu.Lock()
		defer r.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			u := ev.Request.URL
			urls[ev.RequestID] = u
			r.seen++
			if !strings.HasPrefix(u, prefix) && !strings.HasPrefix(u, "data:") {
				r.bad = append(r.bad, "request to "+u)
			}
		case *network.EventResponseReceived:
			if ev.Response.Status >= 400 && !r.allowed(ev.Response.URL) {
				r.bad = append(r.bad, fmt.Sprintf("%d for %s", ev.Response.Status, ev.Response.URL))
			}
		case *network.EventLoadingFailed:
			// A navigation that replaces a page aborts what it still loads.
			if u := urls[ev.RequestID]; ev.ErrorText != "net::ERR_ABORTED" && !r.allowed(u) {
				r.bad = append(r.bad, fmt.Sprintf("%s (%s) for %s", ev.ErrorText, ev.BlockedReason, u))
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *requests) check(t *testing.T) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == 0 {
		t.Error("saw no requests")
	}
	for _, b := range r.bad {
		t.Error(b)
	}
}

// TestBrowserAnywhere: one built site (two versions, an alias, deploy
// path /project/) works at a server's root, under /project/ and from
// file:// (issue 38 item 3): from the site's root the reader lands on the
// default version, styled and with its scripts running; the sidebar, a
// link of a page and the version switcher lead to pages, from file:// to
// their index.html; every request stays on the site and succeeds. Search
// works where the site is served; from file:// it says why it cannot.
func TestBrowserAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: not in -short")
	}
	ctx := browser(t)
	out, search := twoVersionsAt(t, "/project/")
	if !search {
		t.Log("pagefind is not installed (make site-tools): search is not tried")
	}
	atRoot := httptest.NewServer(livereload.Static(out))
	defer atRoot.Close()
	mux := http.NewServeMux()
	mux.Handle("/project/", http.StripPrefix("/project", livereload.Static(out)))
	under := httptest.NewServer(mux) // anything outside /project/ is a 404
	defer under.Close()
	files := "file://" + filepath.ToSlash(out) + "/"

	for _, place := range []struct {
		name, site, open string
		file             bool
	}{
		{"root", atRoot.URL + "/", atRoot.URL + "/", false},
		{"subpath", under.URL + "/project/", under.URL + "/project/", false},
		{"file", files, files + "index.html", true},
	} {
		t.Run(place.name, func(t *testing.T) {
			index := ""
			if place.file {
				index = "index.html"
			}
			reqs := watch(t, ctx, place.site)
			if place.file {
				reqs.allowed = func(u string) bool { return strings.Contains(u, "/pagefind/") }
			}
			run(t, ctx, "open the site", chromedp.Navigate("about:blank"), chromedp.Navigate(place.open), chromedp.WaitVisible(css(".kb-hero h1")))
			wantLocation(t, location(t, ctx), place.site+"v0.2/"+index)
			styled := get(t, ctx, "styled", chromedp.Evaluate[string](`getComputedStyle(document.querySelector(".kb-header")).display`))
			scripted := get(t, ctx, "scripted", chromedp.Evaluate[bool](`document.getElementById("kb-theme").hasAttribute("aria-pressed")`))
			if styled != "flex" || !scripted {
				t.Errorf("home: header display %q (want flex: the stylesheet loaded), theme button scripted %v (kbook.js ran)", styled, scripted)
			}

			got := navigates(t, ctx, "sidebar: section", chromedp.Click(css(`.kb-sidebar a[href*="/v0.2/runbooks/"]`)))
			wantLocation(t, got, place.site+"v0.2/runbooks/"+index)
			got = navigates(t, ctx, "section card: runbook", chromedp.Click(css(`.kb-card[href*="/runbooks/hello/"]`)))
			wantLocation(t, got, place.site+"v0.2/runbooks/hello/"+index)
			run(t, ctx, "runbook page", chromedp.WaitVisible(css(".kb-verify")))
			current := get(t, ctx, "current", chromedp.Text(css(`.kb-sidebar a[aria-current="page"]`)))
			if !strings.Contains(current, "Hello runbook") {
				t.Errorf("current sidebar entry %q, want the runbook's", current)
			}

			// A link of a page's Markdown, and the breadcrumbs back.
			run(t, ctx, "intro", chromedp.Navigate(place.site+"v0.2/guide/intro/"+index), chromedp.WaitVisible(css(".kb-content")))
			got = navigates(t, ctx, "content link", chromedp.Click(css(`.kb-content a[href*="runbooks/hello/"]`)))
			wantLocation(t, got, place.site+"v0.2/runbooks/hello/"+index)
			got = navigates(t, ctx, "breadcrumb: home", chromedp.Click(css(`.kb-crumbs li:first-child a`)))
			wantLocation(t, got, place.site+"v0.2/"+index)

			// The version switcher, to the same page in v0.1.
			run(t, ctx, "open runbook", chromedp.Navigate(place.site+"v0.2/runbooks/hello/"+index), chromedp.WaitReady(css(`#kb-versions option[value="v0.1"]`)))
			got = navigates(t, ctx, "switch", js(switchVersion("v0.1")))
			wantLocation(t, got, place.site+"v0.1/runbooks/hello/"+index)

			if search {
				run(t, ctx, "search", chromedp.Navigate(place.site+"v0.2/"+index), chromedp.WaitVisible(css("#kb-q")), chromedp.SendKeys(css("#kb-q"), "xylophone"))
				if place.file {
					run(t, ctx, "search says why", chromedp.WaitVisible(css(`#kb-hits .kb-hit-none`)))
					if msg := get(t, ctx, "message", chromedp.Text(css(`#kb-hits .kb-hit-none`))); !strings.Contains(msg, "served over HTTP") {
						t.Errorf("search from file:// says %q", msg)
					}
				} else {
					run(t, ctx, "hits", chromedp.WaitVisible(css(`#kb-hits a`)))
					wantLocation(t, navigates(t, ctx, "search hit", chromedp.Click(css(`#kb-hits a`))), place.site+"v0.2/guide/intro/")
				}
			}
			reqs.check(t)
		})
	}

	// The 404 page is served at any missing address: below the deploy
	// path it is styled, scripted and links home.
	t.Run("404 under the deploy path", func(t *testing.T) {
		reqs := watch(t, ctx, under.URL+"/project/")
		reqs.allowed = func(u string) bool { return strings.Contains(u, "/no/such/") }
		run(t, ctx, "missing page", chromedp.Navigate(under.URL+"/project/v0.2/no/such/page/"), chromedp.WaitVisible(css(".kb-notfound")))
		styled := get(t, ctx, "styled", chromedp.Evaluate[string](`getComputedStyle(document.querySelector(".kb-header")).display`))
		if styled != "flex" {
			t.Errorf("404: header display %q, want flex (the stylesheet loaded)", styled)
		}
		got := navigates(t, ctx, "home link", chromedp.Click(css(`.kb-notfound .kb-content a`)))
		wantLocation(t, got, under.URL+"/project/v0.2/")
		reqs.check(t)
	})
}
