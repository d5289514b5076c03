// Package macros evaluates the MkDocs macros plugin's Jinja subset: its
// configuration (ReadPlugin), expressions against variables (Env.Eval,
// String) and a page rendered line by line for kbook run (Lines), without
// translating the page. internal/mkdocs/markdown renders a page's macros
// for the site with it.
package macros
