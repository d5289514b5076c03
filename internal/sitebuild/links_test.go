package sitebuild

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/gobuild"
)

// TestLinksReportedOnce: a broken link of a page's Markdown is reported
// once (by the link check before the build), not again by the check of
// the written HTML; a link the Markdown check cannot see (raw HTML) is
// still reported, by the written check; a link to a page written
// "intro.md/" resolves, as MkDocs normalises it (trivy's docs had two
// reported twice each).
func TestLinksReportedOnce(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	var lines gobuild.Lines
	if err := Build(context.Background(), Options{Dir: "testdata/links-once", OutDir: out, Version: "next", NoRun: true, NoSearch: true, Logger: &lines}); err != nil {
		t.Fatal(err)
	}
	logged := lines.String()
	for _, tc := range []struct {
		link  string
		times int
	}{{`"missing.md"`, 1}, {`"nowhere.html"`, 1}, {`intro.md/`, 0}, {`index.md/`, 0}} {
		if n := strings.Count(logged, tc.link); n != tc.times {
			t.Errorf("%s reported %d times, want %d", tc.link, n, tc.times)
		}
	}
	for page, wants := range map[string][]string{
		"index.html":             {`href="../next/guide/intro/">intro</a>`, `href="../next/guide/intro/#setup">setup</a>`},
		"guide/intro/index.html": {`href="../../../next/">home</a>`},
	} {
		data, err := os.ReadFile(filepath.Join(out, "next", filepath.FromSlash(page)))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range wants {
			if !strings.Contains(string(data), w) {
				t.Errorf("%s: no %s", page, w)
			}
		}
	}
	if t.Failed() {
		t.Logf("log:\n%s", logged)
	}
}
