package docsrepo

import "testing"

// TestMkDocsRunbookFlag: a page is a runbook when one of its blocks
// carries the run flag, without front matter or kbook.yaml; a page of
// shell blocks without it is not.
func TestMkDocsRunbookFlag(t *testing.T) {
	dir := t.TempDir()
	flagged := []byte("# Page\n\n```bash run\necho hi\n```\n")
	rb, _, err := MkDocsRunbook(dir, nil, "docs/page.md", flagged)
	if err != nil || rb == nil || len(rb.Steps) != 1 || rb.Path != "docs/page.md" {
		t.Fatalf("flagged page: %+v, %v", rb, err)
	}
	rb, _, err = MkDocsRunbook(dir, nil, "docs/other.md", []byte("# Page\n\n```bash\necho hi\n```\n"))
	if err != nil || rb != nil {
		t.Errorf("unflagged page: %+v, %v", rb, err)
	}
}
