package docsrepo

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/frontmatter"
)

// frontMatterKinds are the types of the front matter keys Hugo and the
// theme read: a value of another type is ignored by Hugo without a word
// (weight: heavy orders nothing), so kbook names it.
var frontMatterKinds = map[string]string{
	"title": "string", "linkTitle": "string", "description": "string", "summary": "string",
	"slug": "string", "url": "string", "type": "string", "layout": "string",
	"weight": "int",
	"draft":  "bool", "headless": "bool", "toc": "bool",
	"aliases": "strings", "tags": "strings", "keywords": "strings", "categories": "strings",
}

var yamlLineRe = regexp.MustCompile(`^yaml: line (\d+): `)

// CheckFrontMatter checks the YAML front matter of a content page before
// Hugo reads it: that it parses, is a mapping, and that the keys above
// have their type. Errors name the source line.
func CheckFrontMatter(file string, src []byte) error {
	b := frontmatter.Split(src)
	if b.Unclosed {
		return &findings.InputError{File: file, Line: 1, Err: errors.New("front matter opened with --- is never closed with a --- line")}
	}
	if !b.Found() {
		return nil // none, or TOML/JSON front matter: Hugo checks those
	}
	fm := b.YAML
	var root yaml.Node
	if err := yaml.Unmarshal(fm, &root); err != nil {
		line, msg := yamlErrorLine(fm, err)
		return &findings.InputError{File: file, Line: line + 1, Err: errors.New("front matter: " + msg)}
	}
	if len(root.Content) == 0 {
		return nil
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return &findings.InputError{File: file, Line: top.Line + 1, Err: errors.New("front matter: want key: value lines (a YAML mapping)")}
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Value == "kbook" {
			return &findings.InputError{File: file, Line: k.Line + 1, Err: errors.New("front matter: the key kbook is kbook's own (runbook results, verification): rename it")}
		}
		kind, known := frontMatterKinds[k.Value]
		if !known {
			continue
		}
		if why := frontMatterType(kind, v); why != "" {
			return findings.Inputf(file, v.Line+1, "front matter: %s %s", k.Value, why)
		}
	}
	return nil
}

// frontMatterType says why v is not of kind ("" if it is).
func frontMatterType(kind string, v *yaml.Node) string {
	scalar := func(tag string) bool { return v.Kind == yaml.ScalarNode && v.Tag == tag }
	switch kind {
	case "string":
		if v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
			return ""
		}
		return "must be text"
	case "int":
		if scalar("!!int") {
			return ""
		}
		return fmt.Sprintf("must be a whole number, got %q", v.Value)
	case "bool":
		if scalar("!!bool") {
			return ""
		}
		return fmt.Sprintf("must be true or false, got %q", v.Value)
	case "strings":
		if v.Kind == yaml.ScalarNode && v.Tag == "!!str" {
			return ""
		}
		if v.Kind == yaml.SequenceNode {
			for _, item := range v.Content {
				if item.Kind != yaml.ScalarNode {
					return "must be a list of text items"
				}
			}
			return ""
		}
		return "must be a list of text items"
	}
	return ""
}

// yamlErrorLine is the front matter line of a YAML syntax error and its
// message. The parser names the line a construct began on (an unclosed
// "[x" on line 2 after "title:" on line 1 is reported on line 1); the first
// line whose prefix of the document fails with the same message is
// nearer to where the reader must look.
func yamlErrorLine(fm []byte, err error) (int, string) {
	line, msg := splitYAMLLine(err)
	line = max(line, 1)
	lines := bytes.SplitAfter(fm, []byte("\n"))
	for n := line; n <= len(lines); n++ {
		var node yaml.Node
		perr := yaml.Unmarshal(bytes.Join(lines[:n], nil), &node)
		if perr == nil {
			continue
		}
		if _, pmsg := splitYAMLLine(perr); pmsg == msg {
			return n, msg
		}
	}
	return line, msg
}

func splitYAMLLine(err error) (int, string) {
	if m := yamlLineRe.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, strings.TrimPrefix(err.Error(), m[0])
	}
	return 0, strings.TrimPrefix(err.Error(), "yaml: ")
}
