package serve

import (
	"context"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/log"
	"github.com/k0rdent/kbook/internal/testfile"
)

// TestLiveWarns: each build kbook serve makes says its warnings as kbook
// build does (an MkDocs project's broken link warns there), instead of
// dropping them.
func TestLiveWarns(t *testing.T) {
	dir := t.TempDir()
	testfile.Write(t, dir, "mkdocs.yml", "site_name: Warns\n")
	testfile.Write(t, dir, "docs/index.md", "# Home\n\nSee [the guide](guide.md).\n")
	var out strings.Builder
	live := &Live{Dir: dir, Out: t.TempDir(), Logger: log.To{W: &out}}
	if err := live.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "docs/index.md:3") || !strings.Contains(got, "guide.md") {
		t.Errorf("the broken link's warning was not said:\n%s", got)
	}
}
