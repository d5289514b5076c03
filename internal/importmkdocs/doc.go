// Package importmkdocs is `kbook import mkdocs`: an MkDocs project written
// as a kbook docs repository, with what it could not carry over listed.
//
// Import reads the project as kbook build does (package site) and writes
// kbook.yaml, content/ with Hugo front matter (titles and weights from the
// nav) and the pages translated from MkDocs's Markdown, the runbooks in
// runbooks/ and docs_dir's other files beside the pages, all at once or
// nothing.
package importmkdocs
