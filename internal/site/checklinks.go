package site

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/site/links"
)

// CheckLinks checks every internal link and anchor of the project. A link
// into one of the versions built in this run (built; p's own among them)
// is checked against that version's pages and anchors; a link into
// another version against what out holds ("" skips those).
func CheckLinks(p *Project, out string, built ...*Version) []findings.Finding {
	s := linkSite(p)
	if list, err := ReadVersions(out); err == nil {
		for _, e := range list {
			s.Versions = append(s.Versions, e.Version)
			s.Versions = append(s.Versions, e.Aliases...)
		}
	}
	if len(built) > 0 {
		s.Built = map[string]*links.Site{}
		for _, v := range built {
			vs := s
			if v.Project != p {
				vs = linkSite(v.Project)
			}
			for _, name := range append([]string{v.Name}, v.Aliases...) {
				s.Built[name] = vs
			}
		}
	}
	s.Out = out
	return applyPolicy(links.Check(s), p.Config.Links)
}

// linkSite is what the link checker sees of a project: its pages with
// their step anchors, the pages kbook generates and the files it may link.
func linkSite(p *Project) *links.Site {
	s := &links.Site{}
	have := map[string]bool{}
	for _, pg := range p.Pages {
		base := filepath.Base(pg.Path)
		lp := links.Page{File: pg.File, URL: pg.URL(), Source: pg.Source, Index: base == "_index.md" || base == "index.md"}
		if pg.Runbook != nil {
			for _, st := range pg.Runbook.Steps {
				lp.Anchors = append(lp.Anchors, StepAnchor(st.Index))
			}
		}
		have[lp.URL] = true
		s.Pages = append(s.Pages, lp)
	}
	for _, g := range []string{"", "verification/", "runbooks/"} {
		if !have[g] {
			s.Pages = append(s.Pages, links.Page{File: "(generated " + g + ")", URL: g})
		}
	}
	s.Files = append(s.Files, "verification.json", "versions.json")
	s.Files = append(s.Files, filesBelow(filepath.Join(p.Dir, p.Config.Content), true)...)
	s.Files = append(s.Files, filesBelow(filepath.Join(p.Dir, p.Config.Site, "static"), false)...)
	return s
}

// filesBelow lists the files below dir, relative to it (non-Markdown
// files only when resources is set: a page's images and downloads).
func filesBelow(dir string, resources bool) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if resources && strings.HasSuffix(strings.ToLower(p), ".md") {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out
}

// linkFindingsError logs the findings below error severity, each as its
// line says it ("FILE:LINE: warning: MSG [RULE]", as kbook check prints
// it, not a warning about a warning), and returns
// the errors as one located *findings.InputError at the first (nil for
// none).
func linkFindingsError(fs []findings.Finding, logger log.Logger) error {
	var errs []findings.Finding
	for _, f := range fs {
		if f.Severity == findings.Error {
			errs = append(errs, f)
		} else {
			logger.Infof("%s", f)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	msg := errs[0].Message
	for _, f := range errs[1:] {
		msg += "\n" + f.String()
	}
	return &findings.InputError{File: errs[0].File, Line: errs[0].Line, Err: errors.New(msg)}
}

// LinkWarnings are the findings of CheckLinks below error severity (the
// site is still written), each at its file:line.
func LinkWarnings(fs []findings.Finding) []findings.Finding {
	var out []findings.Finding
	for _, f := range fs {
		if f.Severity != findings.Error {
			out = append(out, f)
		}
	}
	return out
}

// LinkError is one error listing the broken links of severity error, each
// at its file:line (nil for none); warnings are left to LinkWarnings.
func LinkError(all []findings.Finding) error {
	var fs []findings.Finding
	for _, f := range all {
		if f.Severity == findings.Error {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return nil
	}
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	what := "broken links"
	if len(fs) == 1 {
		what = "broken link"
	}
	return fmt.Errorf("%d %s:\n%s", len(fs), what, strings.TrimSuffix(b.String(), "\n"))
}
