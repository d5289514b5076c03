package frontmatter

import (
	"bytes"
)

// BOM is the UTF-8 byte order mark Split skips at the start of a page.
const BOM = "\xef\xbb\xbf"

// Block is where a page's front matter is, as Split finds it.
type Block struct {
	// YAML is the text between the delimiter lines, as it is in the page
	// (nil when there is no block; empty, not nil, for an empty one).
	YAML []byte
	// End is the byte offset of the body: just after the closing line and
	// its newline (0 when there is no block).
	End int
	// Lines is the number of lines the block takes, its delimiter lines
	// included (0 when there is no block): the body starts on line Lines+1.
	Lines int
	// Unclosed is set when the first line opens a block that no later
	// line closes (and then there is no block).
	Unclosed bool
}

// Found reports whether the page has a front matter block.
func (b Block) Found() bool { return b.Lines > 0 }

// Split finds the front matter block at the start of src.
func Split(src []byte) Block {
	start := 0
	if bytes.HasPrefix(src, []byte(BOM)) {
		start = len(BOM)
	}
	first, rest, ok := bytes.Cut(src[start:], []byte("\n"))
	if !ok || !delimiter(first, false) {
		return Block{}
	}
	open := start + len(first) + 1
	off, n := open, 1
	for len(rest) > 0 {
		line, next, more := bytes.Cut(rest, []byte("\n"))
		n++
		end := off + len(line)
		if more {
			end++
		}
		if delimiter(line, true) {
			return Block{YAML: src[open:off:off], End: end, Lines: n}
		}
		off, rest = end, next
	}
	return Block{Unclosed: true}
}

// Body is src after its front matter block (src when there is none).
func Body(src []byte) []byte { return src[Split(src).End:] }

// Blank returns a copy of src with its front matter block (and a byte
// order mark) blanked to spaces, newlines kept, so that a Markdown parser
// of the copy reports the offsets and line numbers of src; src itself when
// there is no block.
func Blank(src []byte) []byte {
	b := Split(src)
	if !b.Found() {
		return src
	}
	out := bytes.Clone(src)
	for i := range b.End {
		if out[i] != '\n' {
			out[i] = ' '
		}
	}
	return out
}

// delimiter reports whether line is "---" (or, closing, "...") once its
// trailing blanks and carriage return are cut.
func delimiter(line []byte, closing bool) bool {
	l := string(bytes.TrimRight(line, " \t\r"))
	return l == "---" || closing && l == "..."
}
