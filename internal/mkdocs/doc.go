// Package mkdocs reads an MkDocs project as MkDocs 1.6 does: `mkdocs.yml`
// (`!ENV`, `!!python/name`), docs_dir, nav, exclusions, redirects, link
// validation.
//
// It reads an MkDocs project as MkDocs 1.6 does: mkdocs.yml (with its !ENV
// and !!python/name tags), docs_dir, the nav tree, the files MkDocs would
// build (exclude_docs, the exclude plugin, the theme's custom_dir), the
// redirects plugin's maps and the link validation settings. It says what a
// project is; internal/site builds it and internal/mkdocs/markdown
// translates its pages.
package mkdocs
