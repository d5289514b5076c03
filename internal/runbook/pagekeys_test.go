package runbook

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestFrontMatterPageKeys: a runbook is a page of the docs too, so the
// front matter keys of Hugo and MkDocs-material pages parse (kbook build
// accepts them, so kbook check and run must); a key nobody reads is still
// an error at its line.
func TestFrontMatterPageKeys(t *testing.T) {
	rb, err := ParseFile("testdata/pagekeys.md")
	if err != nil {
		t.Fatal(err)
	}
	if rb.Meta.Title != "A runbook of an MkDocs-material site" || !slices.Equal(rb.Meta.Tags, []string{"k0s", "install"}) || len(rb.Steps) != 1 {
		t.Fatalf("meta = %+v, %d steps", rb.Meta, len(rb.Steps))
	}
	_, err = Parse("x.md", []byte("---\ntitle: x\nhide: [toc]\nowner: me\n---\n"))
	if err == nil || !strings.Contains(err.Error(), "x.md:4: front matter: field owner not found") || !strings.Contains(err.Error(), "hide") {
		t.Fatalf("err = %v", err)
	}
}

// TestPageKeysDecoded: every key of PageKeys is a field of metaDoc.
func TestPageKeysDecoded(t *testing.T) {
	var tags []string
	ty := reflect.TypeFor[metaDoc]()
	for i := range ty.NumField() {
		if tag := ty.Field(i).Tag.Get("yaml"); !strings.HasPrefix(tag, ",") {
			tags = append(tags, tag)
		}
	}
	slices.Sort(tags)
	keys := slices.Sorted(slices.Values(PageKeys))
	if !slices.Equal(tags, keys) {
		t.Fatalf("metaDoc decodes %v, PageKeys lists %v", tags, keys)
	}
}
