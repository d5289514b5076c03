package runbook

import "time"

// Format is the source format of a runbook.
type Format string

const (
	// Markdown is a runbook written as Markdown with fenced testscript blocks.
	Markdown Format = "markdown"
	// Txtar is a plain testscript archive, run unchanged.
	Txtar Format = "txtar"
)

// Runbook is one parsed runbook.
type Runbook struct {
	// Path is the file the runbook was read from, as given by the caller.
	Path string
	// Format tells how Path was parsed.
	Format Format
	// Meta is the front matter.
	Meta Meta
	// Steps are the executable blocks, in source order.
	Steps []*Step
	// Files are the blocks written into the work directory, in source order.
	Files []*File
	// Blocks are all fenced code blocks of a Markdown runbook (empty for txtar).
	Blocks []*Block
	// Source is the file content as read.
	Source []byte
	// shellWhy is why the page runs its shell blocks; "" when it does not.
	shellWhy string
	// blocksOptIn: nothing but the run flag (RunFlag) of some of its
	// blocks opted the page in, so only those blocks run.
	blocksOptIn bool
}

// Name is the runbook's display name: its path without extension.
func (r *Runbook) Name() string { return trimExt(r.Path) }

// Title is Meta.Title, or the name when the front matter has none.
func (r *Runbook) Title() string {
	if r.Meta.Title != "" {
		return r.Meta.Title
	}
	return r.Name()
}

// Meta is a runbook's YAML front matter.
type Meta struct {
	Title       string   `yaml:"title"`
	Description string   `yaml:"description"`
	Requires    []string `yaml:"requires"`
	Timeout     Duration `yaml:"timeout"`
	Tags        []string `yaml:"tags"`
	Weight      int      `yaml:"weight"`
	// Inputs are glob patterns, relative to the runbook's directory, of
	// files the runbook reads; their content is part of the cache key.
	Inputs []string `yaml:"inputs"`
	// CRDs are files or directories of CustomResourceDefinitions, relative
	// to the runbook's directory, installed into the cluster before the
	// runbook runs; they are part of the cache key like inputs.
	CRDs []string `yaml:"crds"`
	// Run is "shell" when the page's shell blocks run as well as its
	// testscript blocks (a docs page that was not written for kbook).
	Run string `yaml:"run"`
	// Output is the page's default output mode for its shell blocks:
	// shape (the default), exact or illustrative.
	Output string `yaml:"output"`

	// RequiresLines, InputsLines and CRDsLines hold the source line of
	// each entry of Requires, Inputs and CRDs.
	RequiresLines []int `yaml:"-"`
	InputsLines   []int `yaml:"-"`
	CRDsLines     []int `yaml:"-"`
}

// Duration is a time.Duration written as a Go duration string ("5m").
type Duration struct{ time.Duration }

// Step is one executable testscript block.
type Step struct {
	// Index is the 1-based position among the runbook's steps.
	Index int
	// Name is the name= attribute, else the enclosing heading, made unique.
	Name string
	// Line is the source line of the opening fence (or of the script for txtar).
	Line int
	// Script holds the block's lines with their source line numbers.
	Script []Line
	// Block is the fenced block (nil for txtar).
	Block *Block
	// Shell is set when the step is a shell block run in the page's bash
	// session rather than a testscript block; Script is empty then.
	Shell *Shell
}

// Line is one script line and where it stands in the source.
type Line struct {
	Text string
	Num  int
}

// File is a block written into the work directory before the steps run.
type File struct {
	Name    string
	Content string
	// Line is the source line of the opening fence (or of the txtar marker).
	Line  int
	Block *Block
	// By says how a block of a page that runs its shell blocks was bound
	// to the file when no file= attribute names it: by its title=
	// attribute, or inferred from the prose before it and confirmed by a
	// later -f; "" for file=.
	By string
}

// Block is one fenced code block of a Markdown runbook.
type Block struct {
	// Lang is the first word of the info string.
	Lang string
	// Attrs are the key=value attributes of the info string.
	Attrs map[string]string
	// Flags are the bare words of the info string after the language.
	Flags []string
	// Line is the source line of the opening fence; EndLine that of the
	// closing fence.
	Line, EndLine int
	// Content is the block's text with line endings normalised to \n and
	// container indentation removed.
	Content string
	// ContentStart and ContentEnd delimit the content bytes in Source,
	// from the first byte after the opening fence line to the first byte of
	// the closing fence line.
	ContentStart, ContentEnd int
	// Prefix is what stands before each content line in the source (list
	// indentation, blockquote markers).
	Prefix string
	// CRLF is true when the block's lines end in \r\n.
	CRLF bool
	// Heading is the text of the nearest heading above the block.
	Heading string
	// Macros are the source lines whose macros ({{ var }}) ExpandMacros
	// rendered in Content; nil when none changed.
	Macros []int
}

// Has reports whether the info string carries the bare flag f.
func (b *Block) Has(f string) bool {
	for _, x := range b.Flags {
		if x == f {
			return true
		}
	}
	return false
}

// MetaLine is the source line of entry i of a front matter list (one of
// RequiresLines, InputsLines, CRDsLines), or 1 when unknown.
func MetaLine(lines []int, i int) int {
	if i < len(lines) {
		return lines[i]
	}
	return 1
}
