//go:build e2e

package e2e

import (
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/k0rdent/kbook/internal/livereload"
)

var (
	screenshots = flag.String("screenshots", "", "write PNG screenshots of the site into this `directory`")
	shotSite    = flag.String("site", "", "built site `directory` to screenshot (default: the test docs)")
	shotRunbook = flag.String("runbook", "runbooks/hello/", "runbook page to screenshot, below the version folder")
)

// TestScreenshots takes the home page and a runbook page in light, dark
// and mobile layouts: go test -run TestScreenshots ./internal/site/e2e
// -args -screenshots DIR [-site bin/site -runbook runbooks/first-runbook/].
func TestScreenshots(t *testing.T) {
	if *screenshots == "" {
		t.Skip("no -screenshots DIR given")
	}
	out := *shotSite
	if out == "" {
		out, _ = twoVersions(t)
	}
	ctx := browser(t)
	srv := httptest.NewServer(livereload.Static(out))
	defer srv.Close()
	run(t, ctx, "home", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(css("main")))
	home := srv.URL + "/" + strings.Split(strings.TrimPrefix(location(t, ctx), srv.URL+"/"), "/")[0] + "/"
	if err := os.MkdirAll(*screenshots, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, page := range []struct{ name, url string }{{"home", home}, {"runbook", home + *shotRunbook}} {
		for _, mode := range []struct {
			name   string
			w, h   int64
			mobile bool
			theme  string
		}{{"light", 1440, 1000, false, "light"}, {"dark", 1440, 1000, false, "dark"}, {"mobile", 390, 844, true, "light"}} {
			view := chromedp.EmulateViewport(mode.w, mode.h)
			if mode.mobile {
				view = chromedp.EmulateViewport(mode.w, mode.h, chromedp.EmulateScale(2), chromedp.EmulateMobile)
			}
			run(t, ctx, page.name+" "+mode.name, view,
				chromedp.Navigate(page.url),
				chromedp.WaitVisible(css("main")),
				js(`localStorage.setItem("kbook-theme", "`+mode.theme+`")`),
				chromedp.Reload(),
				chromedp.WaitVisible(css("main")),
				chromedp.Sleep(300_000_000))
			png := get(t, ctx, "screenshot", chromedp.CaptureScreenshot())
			file := filepath.Join(*screenshots, page.name+"-"+mode.name+".png")
			if err := os.WriteFile(file, png, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s", file)
		}
	}
	run(t, ctx, "reset", js(`localStorage.removeItem("kbook-theme")`), chromedp.ResetViewport())
}
