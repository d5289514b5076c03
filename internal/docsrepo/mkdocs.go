package docsrepo

import (
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/mkdocs"
)

// MkDocsSiteDir is the default layout-override folder of an MkDocs
// project: site/ is where mkdocs build writes its own output.
const MkDocsSiteDir = "kbook-site"

// OpenMkDocs reads the MkDocs project in dir: mkdocs.yml, kbook.yaml
// beside it (what it leaves unset taken from mkdocs.yml) and the files of
// docs_dir.
func OpenMkDocs(dir string) (*mkdocs.Project, *Config, *mkdocs.Files, error) {
	mk, err := mkdocs.Load(dir)
	if err != nil {
		return nil, nil, nil, MkDocsError(err)
	}
	cfg, err := readConfig(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	mkdocsConfig(cfg, mk)
	if err := cfg.finish(dir); err != nil {
		return nil, nil, nil, err
	}
	files, err := mk.Files()
	if err != nil {
		return nil, nil, nil, MkDocsError(err)
	}
	return mk, cfg, files, nil
}

// mkdocsConfig fills what kbook.yaml leaves unset from mkdocs.yml.
func mkdocsConfig(c *Config, mk *mkdocs.Project) {
	set := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	set(&c.Title, mk.SiteName)
	set(&c.Description, mk.SiteDescription)
	set(&c.Repo, mk.RepoURL)
	set(&c.Content, mk.DocsDir)
	c.mkdocsDocs = mk.DocsDir
	set(&c.Site, MkDocsSiteDir)
	v := mk.Validation.Links
	absolute := v.AbsoluteLinks
	if absolute == "relative_to_docs" {
		absolute = v.NotFound // checked as links into docs_dir
	}
	set(&c.Links.NotFound, v.NotFound)
	set(&c.Links.Anchors, v.Anchors)
	set(&c.Links.Absolute, absolute)
	c.Links.Strict = c.Links.Strict || mk.Strict
}

// MkDocsError is the located error within an error of the MkDocs reader
// or the translator, without what wraps it.
func MkDocsError(err error) error {
	if le := findings.Located(err); le != nil {
		return le
	}
	return err
}
