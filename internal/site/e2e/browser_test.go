//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/k0rdent/kbook/internal/cache"
	"github.com/k0rdent/kbook/internal/livereload"
	"github.com/k0rdent/kbook/internal/report"
	"github.com/k0rdent/kbook/internal/runner"
	"github.com/k0rdent/kbook/internal/serve"
	"github.com/k0rdent/kbook/internal/site"
)

// chromium finds the browser: $KBOOK_CHROMIUM, else Debian's chromium or
// chromium-headless-shell, else Chrome.
func chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("KBOOK_CHROMIUM"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-headless-shell", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	for _, p := range []string{"/usr/lib/chromium/chromium", "/usr/lib/chromium/headless_shell"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("no Chromium: install Debian's chromium (make site-tools) or set KBOOK_CHROMIUM to run the browser tests")
	return ""
}

// browser starts a fresh headless Chromium for the test.
func browser(t testing.TB) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1360, 900),
	)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelA() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// css makes a selector a CSS selector. chromedp resolves an untyped string
// with DOM.performSearch, which also matches plain text: "main" then found
// the word "maintenance" on kbook's home page, a text node that is never
// "visible", and WaitVisible waited until its deadline.
type css = chromedp.CSS

// run runs chromedp actions in order with a time limit.
func run(t testing.TB, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(tctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// get runs one action that returns a value.
func get[T any](t testing.TB, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(tctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// js evaluates an expression for its side effect.
func js(expr string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[any](expr)(ctx, t)
		return chromedp.Void{}, err
	}
}

// fixture copies the site package's test docs repository.
func fixture(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "docs")
	if err := os.CopyFS(dst, os.DirFS("../testdata/docs")); err != nil {
		t.Fatal(err)
	}
	return dst
}

// results runs the project's runbooks for real.
func results(t testing.TB, p *site.Project) *report.Report {
	t.Helper()
	rep, err := serve.RunInProcess(runner.Options{Parallel: 1, Version: "test"})(context.Background(), p.RunbookPaths())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// twoVersions builds v0.1 and then v0.2 (alias latest, one more page)
// of the fixture into a new output folder.
func twoVersions(t testing.TB) (out string, search bool) {
	t.Helper()
	return twoVersionsAt(t, "")
}

// twoVersionsAt is twoVersions with a deploy URL (--base-url).
func twoVersionsAt(t testing.TB, baseURL string) (out string, search bool) {
	t.Helper()
	dir := fixture(t)
	out = filepath.Join(t.TempDir(), "public")
	pf := site.FindPagefind(dir)
	for _, v := range []string{"v0.1", "v0.2"} {
		if v == "v0.2" {
			page := "---\ntitle: New in v0.2\nweight: 2\n---\n\nOnly in the second version.\n"
			if err := os.WriteFile(filepath.Join(dir, "content", "guide", "new.md"), []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := site.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		var aliases []string
		if v == "v0.2" {
			aliases = []string{"latest"}
		}
		if _, err := site.Render(context.Background(), []*site.Version{{Name: v, Aliases: aliases, Project: p, Results: results(t, p)}}, site.Options{Out: out, Search: pf, BaseURL: baseURL}); err != nil {
			t.Fatal(err)
		}
	}
	return out, pf.Available()
}

func location(t testing.TB, ctx context.Context) string {
	t.Helper()
	return get(t, ctx, "location", chromedp.Location())
}

// navigates runs actions that make the page navigate (a click on a link,
// the version switcher's script) and waits for the load event of the
// document they open; it returns the new location. chromedp listens for
// the navigation before the actions run, so a navigation that starts late
// (the switcher first asks the server whether the page exists) is not
// missed, and nothing asks the page for its location while the old
// document goes away: a Runtime.evaluate then fails with "Inspected target
// navigated or closed (-32000)", the flake of issue 18.
func navigates(t testing.TB, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) string {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if _, err := chromedp.RunResponse(tctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return location(t, ctx)
}

// settled opens a page and waits until its network is idle (Chromium's
// networkIdle lifecycle event of the new document): the requests its
// scripts make after the load event (versions.json, the existence checks)
// have then been made.
func settled(url string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		started := false
		_, err := chromedp.WaitEvent(page.LifecycleEvent, func(ev page.EventLifecycleEvent) bool {
			if ev.Name == "init" {
				started = true
			}
			return started && ev.Name == "networkIdle"
		}, chromedp.Navigate(url))(ctx, tg)
		return chromedp.Void{}, err
	}
}

func wantLocation(t testing.TB, got, suffix string) {
	t.Helper()
	if !strings.HasSuffix(got, suffix) {
		t.Fatalf("location %s, want one ending in %s", got, suffix)
	}
}

func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: not in -short")
	}
	ctx := browser(t)
	out, search := twoVersions(t)
	srv := httptest.NewServer(livereload.Static(out))
	defer srv.Close()

	t.Run("home and sidebar to a runbook", func(t *testing.T) {
		// The root redirects to the default version: the hero is on the
		// page it redirects to, so once it shows the redirect is over.
		run(t, ctx, "open home", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(css(".kb-hero h1")))
		title := get(t, ctx, "title", chromedp.Text(css(".kb-hero h1")))
		wantLocation(t, location(t, ctx), "/v0.2/")
		if title != "Acme platform docs" {
			t.Errorf("home title %q", title)
		}
		wantLocation(t, navigates(t, ctx, "sidebar: section", chromedp.Click(css(`.kb-sidebar a[href$="/runbooks/"]`))), "/v0.2/runbooks/")
		run(t, ctx, "sidebar: section open", chromedp.WaitVisible(css(`.kb-sidebar a[href$="/runbooks/hello/"]`)))
		wantLocation(t, navigates(t, ctx, "sidebar: runbook", chromedp.Click(css(`.kb-sidebar a[href$="/runbooks/hello/"]`))), "/v0.2/runbooks/hello/")
		run(t, ctx, "runbook page", chromedp.WaitVisible(css(".kb-verify")))
		badge := get(t, ctx, "badge", chromedp.Text(css(".kb-verify .kb-badge")))
		output := get(t, ctx, "output", chromedp.Text(css("#step-1 .kb-out")))
		current := get(t, ctx, "current", chromedp.Text(css(`.kb-sidebar a[aria-current="page"]`)))
		if badge != "Verified" || output != "hello" || !strings.Contains(current, "Hello runbook") {
			t.Errorf("badge %q, first output %q, current sidebar entry %q", badge, output, current)
		}
	})

	t.Run("copy button copies the commands only", func(t *testing.T) {
		run(t, ctx, "copy",
			js(`window.__copied = null; navigator.clipboard.writeText = t => { window.__copied = t; return Promise.resolve(); }`),
			chromedp.Click(css("#step-2 .kb-copy")))
		copied := get(t, ctx, "copied", chromedp.Poll[string](`window.__copied`, chromedp.WithPollingTimeout(5*time.Second)))
		want := "sh -c 'echo oops >&2; exit 3'\nnonexistent-tool"
		if copied != want {
			t.Errorf("copied %q, want %q", copied, want)
		}
	})

	t.Run("search lands on the page", func(t *testing.T) {
		if !search {
			t.Skip("pagefind is not installed (make site-tools): no search index to test")
		}
		run(t, ctx, "search",
			chromedp.Navigate(srv.URL+"/v0.2/"),
			chromedp.WaitVisible(css("#kb-q")),
			chromedp.SendKeys(css("#kb-q"), "xylophone"),
			chromedp.WaitVisible(css(`#kb-hits a`)))
		wantLocation(t, navigates(t, ctx, "search hit", chromedp.Click(css(`#kb-hits a`))), "/v0.2/guide/intro/")
	})

	t.Run("switch version, stay on the page, see the banner", func(t *testing.T) {
		// The search left the browser on this very page: a blank page
		// first, or the waits below may match the old document while the
		// new one loads (seen: the switcher null mid-navigation).
		run(t, ctx, "open",
			chromedp.Navigate("about:blank"),
			chromedp.Navigate(srv.URL+"/v0.2/guide/intro/"),
			chromedp.WaitReady(css(`#kb-versions option[value="v0.1"]`)))
		wantLocation(t, navigates(t, ctx, "switch", js(switchVersion("v0.1"))), "/v0.1/guide/intro/")
		run(t, ctx, "banner", chromedp.WaitVisible(css("#kb-banner")))
		banner := get(t, ctx, "banner text", chromedp.Text(css("#kb-banner")))
		href := get(t, ctx, "banner link", chromedp.AttributeValue(css("#kb-banner-link"), "href")).Value
		if !strings.Contains(banner, "v0.1, an older version") || !strings.HasSuffix(href, "/latest/guide/intro/") {
			t.Errorf("banner %q, link %q", banner, href)
		}
		// A page that v0.1 lacks: the switcher says so and stays.
		run(t, ctx, "switch to a missing page",
			chromedp.Navigate(srv.URL+"/v0.2/guide/new/"),
			chromedp.WaitReady(css(`#kb-versions option[value="v0.1"]`)),
			js(switchVersion("v0.1")),
			chromedp.WaitVisible(css(`#kb-banner[data-missing="v0.1"]`)))
		missing := get(t, ctx, "missing banner", chromedp.Text(css("#kb-banner")))
		if !strings.Contains(missing, "does not exist in v0.1") || !strings.HasSuffix(location(t, ctx), "/v0.2/guide/new/") {
			t.Errorf("missing-page banner %q at %s", missing, location(t, ctx))
		}
	})

	t.Run("dark mode toggle persists", func(t *testing.T) {
		run(t, ctx, "toggle",
			chromedp.Navigate(srv.URL+"/v0.2/runbooks/hello/"),
			chromedp.WaitVisible(css("#kb-theme")),
			chromedp.Click(css("#kb-theme")),
			chromedp.Reload(),
			chromedp.WaitVisible(css("#kb-theme")))
		dark := get(t, ctx, "dark", chromedp.Evaluate[bool](`document.documentElement.classList.contains("dark")`))
		if !dark {
			t.Error("dark mode did not stay on after a reload")
		}
		run(t, ctx, "back to light", chromedp.Click(css("#kb-theme")))
	})

	t.Run("mobile layout", func(t *testing.T) {
		run(t, ctx, "mobile",
			chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile),
			chromedp.Navigate(srv.URL+"/v0.2/runbooks/hello/"),
			chromedp.WaitVisible(css("#kb-menu")))
		menuShown := get(t, ctx, "menu", chromedp.Evaluate[bool](`getComputedStyle(document.getElementById("kb-menu")).display !== "none"`))
		navHidden := get(t, ctx, "nav hidden", chromedp.Evaluate[bool](`document.getElementById("kb-sidebar").getBoundingClientRect().right <= 0`))
		// The menu slides in (a CSS transition): wait until it is in.
		run(t, ctx, "open menu", chromedp.Click(css("#kb-menu")))
		tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		_, err := chromedp.Run(tctx, chromedp.Poll[bool](`document.getElementById("kb-sidebar").getBoundingClientRect().left >= 0`, chromedp.WithPollingTimeout(20*time.Second)))
		cancel()
		navOpen := err == nil
		run(t, ctx, "reset", chromedp.ResetViewport())
		if !menuShown || !navHidden || !navOpen {
			t.Errorf("menu button shown %v, navigation hidden %v, opened by the button %v", menuShown, navHidden, navOpen)
		}
	})

	t.Run("air-gapped: every request stays on the site and succeeds", func(t *testing.T) {
		reqs := watch(t, ctx, srv.URL+"/")
		for _, page := range []string{"/", "/v0.2/runbooks/hello/", "/v0.2/verification/", "/v0.1/guide/intro/"} {
			run(t, ctx, "open "+page, settled(srv.URL+page), chromedp.WaitVisible(css("main")))
		}
		if search {
			run(t, ctx, "search", chromedp.SendKeys(css("#kb-q"), "xylophone"), chromedp.WaitVisible(css("#kb-hits a")))
		}
		reqs.check(t)
	})

	t.Run("accessibility", func(t *testing.T) {
		axe := axeSource(t)
		for _, page := range []string{"/v0.2/", "/v0.2/runbooks/hello/", "/v0.2/verification/"} {
			for _, dark := range []bool{false, true} {
				violations := runAxe(t, ctx, axe, srv.URL+page, dark)
				for _, v := range violations {
					t.Errorf("%s (dark %v): %s %s: %s (%d nodes, first: %s)", page, dark, v.Impact, v.ID, v.Help, len(v.Nodes), v.first())
				}
			}
		}
	})
}

// switchVersion picks a version in the switcher as a reader does: the
// value and the change event in one script. Set apart (chromedp.SetValue,
// then the event), the page's own versions.json handler could reset the
// value in between, and the switch then went nowhere.
func switchVersion(v string) string {
	return `(function(){var s=document.getElementById("kb-versions");s.value=` + quote(v) + `;s.dispatchEvent(new Event("change"))})()`
}

// axeSource reads axe-core: $KBOOK_AXE, else the copy make site-tools installs.
func axeSource(t testing.TB) string {
	t.Helper()
	p := os.Getenv("KBOOK_AXE")
	if p == "" {
		p = filepath.Join(cache.DefaultDir(), "npm", "node_modules", "axe-core", "axe.min.js")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Skipf("axe-core is not installed (make site-tools, or set KBOOK_AXE): %v", err)
	}
	return string(data)
}

type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any  `json:"target"`
		HTML   string `json:"html"`
	} `json:"nodes"`
}

func (v axeViolation) first() string {
	if len(v.Nodes) == 0 {
		return ""
	}
	return fmt.Sprint(v.Nodes[0].Target) + " " + v.Nodes[0].HTML
}

// runAxe returns the serious and critical axe-core violations of a page.
func runAxe(t testing.TB, ctx context.Context, axe, url string, dark bool) []axeViolation {
	t.Helper()
	theme := "light"
	if dark {
		theme = "dark"
	}
	run(t, ctx, "axe "+url,
		chromedp.Navigate(url),
		chromedp.WaitVisible(css("main")),
		js(`localStorage.setItem("kbook-theme", "`+theme+`")`),
		chromedp.Reload(),
		chromedp.WaitVisible(css("main")),
		js(axe))
	raw := get(t, ctx, "axe run", chromedp.Evaluate[string](`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations))`, chromedp.EvalAwaitPromise))
	run(t, ctx, "reset theme", js(`localStorage.removeItem("kbook-theme")`))
	var all, bad []axeViolation
	if err := json.Unmarshal([]byte(raw), &all); err != nil {
		t.Fatalf("axe result: %v", err)
	}
	for _, v := range all {
		if v.Impact == "serious" || v.Impact == "critical" {
			bad = append(bad, v)
		}
	}
	return bad
}
