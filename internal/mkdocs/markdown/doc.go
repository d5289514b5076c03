// Package markdown translates the MkDocs-material Markdown dialect
// (admonitions, tabs, snippets, include-markdown, macros, emoji, mermaid,
// ...) for Hugo.
//
// It translates the Markdown dialect of MkDocs-material projects
// (Python-Markdown, pymdown-extensions and the plugins the k0rdent ecosystem
// uses) into Markdown that kbook's Hugo build renders: CommonMark with raw
// HTML wrappers styled by the embedded theme (site/assets/css/mkdocs.css,
// site/assets/js/mkdocs.js).
//
// Translate is a pure function of a page's source and Options: it reads
// other files only for snippets and include-markdown, below the roots the
// options name, takes icons from Options.Icons, and reports what it did
// not know as counts per kind. The passes run in MkDocs's order: includes
// (pymdownx.snippets, include-markdown), macros (Jinja variables), then
// the block syntax (admonitions, details, tabs, callouts, fences, md_in_html,
// abbreviations) and the inline syntax (emoji, critic, caret, mark, tilde,
// keys, attr_list) outside code.
package markdown
