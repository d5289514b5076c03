// Package frontmatter finds a Markdown page's leading YAML front matter
// block, the one way every kbook reader of pages does (runbooks, the
// MkDocs reader and translator, the site's checks and link checker).
//
// A block opens on the page's first line, "---", and closes at the next
// "---" or "..." line. Before the compare, a delimiter line loses its
// trailing blanks and carriage return, so a page with CRLF line endings or
// a "--- " line reads as MkDocs reads it (its meta regexp allows [ \t]*
// after the dashes; Python reads lines with universal newlines). A UTF-8
// byte order mark before the first line is skipped, as Hugo's page lexer
// and MkDocs (utf-8-sig) skip it. A page that opens a block no line closes
// has none; Unclosed says so for the readers that report it.
package frontmatter
