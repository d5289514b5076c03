// Package docsrepo reads a docs repository as kbook run, check, build and
// serve all see it, before anything is rendered: where its root is
// (FindRoot: kbook.yaml or mkdocs.yml), kbook.yaml (LoadConfig: the site's
// settings, versions, run.pages, run.crds and run.overlay), an MkDocs
// project's mkdocs.yml with kbook.yaml beside it (OpenMkDocs), its
// pages' front matter (CheckFrontMatter, MkDocsFrontMatter), which pages
// are runbooks, found on their source (ExpandRunbookPaths, MkDocsRunbook:
// kbook run translates no page, so a page it does not run cannot fail
// it), and its files' paths as a user reads them (UnderDir, ErrorUnder).
//
// It renders nothing and translates no page: package site turns a
// repository into a site.
package docsrepo
