package site

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/k0rdent/kbook/internal/atomicfile"
	"github.com/k0rdent/kbook/internal/docsrepo"
	"github.com/k0rdent/kbook/internal/findings"
)

// VersionsFile is the list of versions at the root of the output, in
// mike's format, read by the version switcher.
const VersionsFile = "versions.json"

// NextVersion is the name of the unreleased channel.
const NextVersion = "next"

// VersionEntry is one entry of versions.json.
type VersionEntry struct {
	Version string   `json:"version"`
	Title   string   `json:"title"`
	Aliases []string `json:"aliases"`
}

// ReadVersions reads OUT/versions.json; a missing file is an empty list.
func ReadVersions(out string) ([]VersionEntry, error) {
	data, err := os.ReadFile(filepath.Join(out, VersionsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var vs []VersionEntry
	if err := json.Unmarshal(data, &vs); err != nil {
		return nil, findings.Inputf(filepath.Join(out, VersionsFile), 0, "not a versions list: %v", err)
	}
	return vs, nil
}

// mergeVersions adds or replaces the entry of v, moving its aliases away
// from other versions, and sorts the list: next first, then releases
// newest first.
func mergeVersions(list []VersionEntry, v VersionEntry) []VersionEntry {
	out := []VersionEntry{v}
	for _, e := range list {
		if e.Version == v.Version {
			continue
		}
		var keep []string
		for _, a := range e.Aliases {
			if !contains(v.Aliases, a) {
				keep = append(keep, a)
			}
		}
		e.Aliases = keep
		if e.Aliases == nil {
			e.Aliases = []string{}
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool { return versionLess(out[j].Version, out[i].Version) })
	return out
}

// versionLess orders versions: semantic versions by precedence, other
// names after them alphabetically, next last (so it sorts first when
// reversed).
func versionLess(a, b string) bool {
	rank := func(s string) int {
		switch {
		case s == NextVersion:
			return 2
		case isSemver(s):
			return 1
		}
		return 0
	}
	ra, rb := rank(a), rank(b)
	if ra != rb {
		return ra < rb
	}
	if ra == 1 {
		return semver.MustParse(a).LessThan(semver.MustParse(b))
	}
	return a > b
}

func isSemver(s string) bool {
	_, err := semver.NewVersion(s)
	return err == nil
}

// defaultVersion is the version readers land on: the one holding the
// default alias, else the newest release, else the first.
func defaultVersion(list []VersionEntry, alias string) (version, folder string) {
	for _, e := range list {
		if contains(e.Aliases, alias) {
			return e.Version, alias
		}
	}
	for _, e := range list {
		if e.Version != NextVersion {
			return e.Version, e.Version
		}
	}
	if len(list) > 0 {
		return list[0].Version, list[0].Version
	}
	return "", ""
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// install moves a freshly built version folder into out, replacing the
// previous build of that version, then writes its alias folders.
func install(built, out string, v VersionEntry) error {
	dst := filepath.Join(out, v.Version)
	old := filepath.Join(out, ".kbook-old-"+v.Version)
	_ = os.RemoveAll(old)
	if _, err := os.Stat(dst); err == nil {
		if err := os.Rename(dst, old); err != nil {
			return fmt.Errorf("replace %s: %w", dst, err)
		}
	}
	if err := os.Rename(built, dst); err != nil {
		_ = os.Rename(old, dst) // the previous version stays published
		return fmt.Errorf("install %s: %w", dst, err)
	}
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	for _, a := range v.Aliases {
		if err := writeAlias(out, a, v.Version); err != nil {
			return err
		}
	}
	return nil
}

// writeAlias makes out/alias a tree of redirects to the same pages of
// out/version, keeping the #fragment.
func writeAlias(out, alias, version string) error {
	dir := filepath.Join(out, alias)
	tmp := filepath.Join(out, ".kbook-alias-"+alias)
	_ = os.RemoveAll(tmp)
	src := filepath.Join(out, version)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if rel == "pagefind" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".html") && rel != "verification.json" {
			return nil
		}
		depth := strings.Count(filepath.ToSlash(rel), "/")
		target := strings.Repeat("../", depth+1) + version + "/" + filepath.ToSlash(rel)
		target = strings.TrimSuffix(target, "index.html")
		var data []byte
		if rel == "verification.json" {
			data, err = os.ReadFile(p)
			if err != nil {
				return err
			}
		} else {
			data = redirectPage(target)
		}
		return writeFile(filepath.Join(tmp, rel), data)
	})
	if err != nil {
		return fmt.Errorf("alias %s: %w", alias, err)
	}
	_ = os.RemoveAll(dir)
	return os.Rename(tmp, dir)
}

// redirectPage is an HTML page that sends the browser to target (a URL
// relative to the page), keeping the fragment; from file://, to the
// folder's index.html (a folder there is a listing).
func redirectPage(target string) []byte {
	t := html.EscapeString(target)
	js, _ := json.Marshal(target)
	return []byte(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Redirecting…</title>` +
		`<link rel="canonical" href="` + t + `"><meta name="robots" content="noindex">` +
		`<script>var t=` + string(js) + `;if(location.protocol==="file:"&&/\/$/.test(t))t+="index.html";location.replace(t+location.hash)</script>` +
		`<noscript><meta http-equiv="refresh" content="0; url=` + t + `"></noscript></head>` +
		`<body><p>Redirecting to <a href="` + t + `">` + t + `</a>…</p></body></html>` + "\n")
}

// writeRoot writes the root files: versions.json, the redirect to the
// default version, the 404 page and the sitemap index.
func writeRoot(out, baseURL string, list []VersionEntry, alias string) error {
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(out, VersionsFile), append(data, '\n')); err != nil {
		return err
	}
	version, folder := defaultVersion(list, alias)
	if folder == "" {
		return nil
	}
	if err := atomicfile.Write(filepath.Join(out, "index.html"), redirectPage(folder+"/")); err != nil {
		return err
	}
	if nf, err := os.ReadFile(filepath.Join(out, version, "404.html")); err == nil {
		if err := atomicfile.Write(filepath.Join(out, "404.html"), nf); err != nil {
			return err
		}
	}
	var sm strings.Builder
	sm.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n" + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, e := range list {
		if _, err := os.Stat(filepath.Join(out, e.Version, "sitemap.xml")); err == nil {
			fmt.Fprintf(&sm, "  <sitemap><loc>%s%s/sitemap.xml</loc></sitemap>\n", html.EscapeString(baseURL), html.EscapeString(e.Version))
		}
	}
	sm.WriteString("</sitemapindex>\n")
	return atomicfile.Write(filepath.Join(out, "sitemap.xml"), []byte(sm.String()))
}

// installShared copies what Hugo published outside the version folders
// into out, keeping files already there (their names are fingerprinted).
func installShared(publish, out string, versions map[string]bool) error {
	entries, err := os.ReadDir(publish)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if versions[name] || docsrepo.Reserved(name) || name == "robots.txt" {
			continue
		}
		src := filepath.Join(publish, name)
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(publish, p)
			dst := filepath.Join(out, rel)
			if _, err := os.Stat(dst); err == nil {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return writeFile(dst, data)
		})
		if err != nil {
			return fmt.Errorf("install %s: %w", name, err)
		}
	}
	return nil
}
