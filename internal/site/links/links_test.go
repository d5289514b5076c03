package links

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Join(out, "v0.1", "guide"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "v0.1", "guide", "index.html"), []byte(`<h2 id="old-heading">Old</h2>`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Site{
		Out:      out,
		Versions: []string{"v0.1", "latest"},
		Files:    []string{"img/logo.png", "guide/conf.yaml"},
		Pages: []Page{
			{File: "content/_index.md", URL: "", Index: true, Source: []byte("---\ntitle: Home\n---\n\n[guide](guide/intro.md) [ok](guide/)\n[bad](guide/nope.md)\n[slash](guide/intro.md/#build) [slash bad](guide/nope.md/)\n")},
			{File: "content/guide/intro.md", URL: "guide/intro/", Source: []byte(`# Intro

## Getting started

## Getting started

## The ` + "`kbook build`" + ` command {#build}

See [start](#getting-started), [again](#getting-started-1), [custom](#build),
[step](../../runbooks/hello.md#step-2), [bad step](/runbooks/hello/#step-9),
[old](/v0.1/guide/#old-heading), [old bad](/v0.1/guide/#nope), [gone](/v0.1/missing/),
[logo](/img/logo.png), [site](https://example.com/x), [mail](mailto:a@b.c),
[missing anchor](#getting-startd)
<a id="raw-anchor"></a> [raw](#raw-anchor)
[beside the source](conf.yaml) [not there](run.sh)
`)},
			{File: "runbooks/hello.md", URL: "runbooks/hello/", Anchors: []string{"step-1", "step-2"}, Source: []byte("# Hello\n")},
		},
	}
	var got []string
	for _, f := range Check(s) {
		got = append(got, f.String())
	}
	want := []string{
		`content/_index.md:6: link "guide/nope.md": no page content/guide/nope.md`,
		`content/_index.md:7: link "guide/nope.md/": no page content/guide/nope.md`,
		`content/guide/intro.md:10: link "/runbooks/hello/#step-9": page runbooks/hello.md has no anchor #step-9`,
		`content/guide/intro.md:11: link "/v0.1/guide/#nope": that page of version v0.1 has no anchor #nope`,
		`content/guide/intro.md:11: link "/v0.1/missing/": version v0.1 has no page /missing/`,
		`content/guide/intro.md:13: link "#getting-startd": page content/guide/intro.md has no anchor #getting-startd`,
		`content/guide/intro.md:15: link "run.sh": no page /guide/intro/run.sh/ in this version`,
	}
	if strings.Join(got, "\n") != strings.Join(prefix(want), "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(prefix(want), "\n"))
	}
}

// prefix adds the severity and rule as findings print them.
func prefix(ws []string) []string {
	var out []string
	for _, w := range ws {
		file, msg, _ := strings.Cut(w, ": ")
		rule := RuleBrokenLink
		if strings.Contains(msg, "no anchor") {
			rule = RuleBrokenAnchor
		}
		out = append(out, file+": error: "+msg+" ["+rule+"]")
	}
	return out
}

// TestCheckBuiltTogether: a link into a version built in the same run is
// checked against that version's pages, whatever Out holds (here a stale
// v0.2 without the new page, and no v0.3 at all).
func TestCheckBuiltTogether(t *testing.T) {
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Join(out, "v0.2", "guide"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "v0.2", "guide", "index.html"), []byte(`<h2 id="stale">Stale</h2>`), 0o644); err != nil {
		t.Fatal(err)
	}
	v02 := &Site{Pages: []Page{
		{File: "content/guide/_index.md", URL: "guide/", Index: true, Source: []byte("# Guide\n\n## Fresh\n")},
		{File: "content/guide/new.md", URL: "guide/new/", Source: []byte("# New\n")},
	}}
	v03 := &Site{Pages: []Page{
		{File: "content/guide/_index.md", URL: "guide/", Index: true, Source: []byte("# Guide\n\n## Newest\n")},
	}}
	v01 := &Site{
		Out:      out,
		Versions: []string{"v0.1", "v0.2", "latest"},
		Built:    map[string]*Site{"v0.2": v02, "latest": v02, "v0.3": v03},
		Pages: []Page{{File: "content/_index.md", URL: "", Index: true, Source: []byte(`# Home

[new](/v0.2/guide/new/) [fresh](/v0.2/guide/#fresh) [latest](/latest/guide/new/) [newest](/v0.3/guide/#newest)
[stale](/v0.2/guide/#stale) [gone](/v0.3/guide/new/) [no anchor](/latest/guide/#nope)
`)}},
	}
	// v0.1 itself is built too: its own absolute links are checked.
	v01.Built["v0.1"] = v01
	v01.Pages = append(v01.Pages, Page{File: "content/a.md", URL: "a/", Source: []byte("[self](/v0.1/) [self bad](/v0.1/b/)\n")})
	var got []string
	for _, f := range Check(v01) {
		got = append(got, f.String())
	}
	want := []string{
		`content/_index.md:4: link "/latest/guide/#nope": page content/guide/_index.md of version latest has no anchor #nope`,
		`content/_index.md:4: link "/v0.2/guide/#stale": page content/guide/_index.md of version v0.2 has no anchor #stale`,
		`content/_index.md:4: link "/v0.3/guide/new/": no page /guide/new/ in version v0.3`,
		`content/a.md:1: link "/v0.1/b/": no page /b/ in version v0.1`,
	}
	if strings.Join(got, "\n") != strings.Join(prefix(want), "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(prefix(want), "\n"))
	}
}

func TestAnchor(t *testing.T) {
	for in, want := range map[string]string{
		"Getting started":          "getting-started",
		"The kbook build command":  "the-kbook-build-command",
		"CHART001: chart metadata": "chart001-chart-metadata",
		"What's new?":              "whats-new",
		"snake_case & dashes-ok":   "snake_case--dashes-ok",
	} {
		if got := Anchor(in); got != want {
			t.Errorf("Anchor(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPageURL: Hugo's pretty URLs, in lower case for section and index
// pages too (kbook's Hugo config keeps disablePathToLower off).
func TestPageURL(t *testing.T) {
	for in, want := range map[string]string{
		"_index.md":         "",
		"index.md":          "",
		"/_index.md":        "",
		"a/b.md":            "a/b/",
		"/a/b.md":           "a/b/",
		"Guide/Intro.md":    "guide/intro/",
		"Foo/_index.md":     "foo/",
		"Foo/Bar/_index.md": "foo/bar/",
		"Foo/index.md":      "foo/",
		"a/b":               "a/b/",
		"Foo/Bar":           "foo/bar/",
	} {
		if got := PageURL(in); got != want {
			t.Errorf("PageURL(%q) = %q, want %q", in, got, want)
		}
	}
}
