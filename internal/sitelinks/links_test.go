package sitelinks

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
		Files:    []string{"img/logo.png"},
		Pages: []Page{
			{File: "content/_index.md", URL: "", Index: true, Source: []byte("---\ntitle: Home\n---\n\n[guide](guide/intro.md) [ok](guide/)\n[bad](guide/nope.md)\n")},
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
		`content/guide/intro.md:10: link "/runbooks/hello/#step-9": page runbooks/hello.md has no anchor #step-9`,
		`content/guide/intro.md:11: link "/v0.1/guide/#nope": that page of version v0.1 has no anchor #nope`,
		`content/guide/intro.md:11: link "/v0.1/missing/": version v0.1 has no page /missing/`,
		`content/guide/intro.md:13: link "#getting-startd": page content/guide/intro.md has no anchor #getting-startd`,
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
