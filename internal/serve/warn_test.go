package serve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/log"
)

// TestLiveWarns: each build kbook serve makes says its warnings as kbook
// build does (an MkDocs project's broken link warns there), instead of
// dropping them.
func TestLiveWarns(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"mkdocs.yml":    "site_name: Warns\n",
		"docs/index.md": "# Home\n\nSee [the guide](guide.md).\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	live := &Live{Dir: dir, Out: t.TempDir(), Logger: log.To{W: &out}}
	if err := live.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "docs/index.md:3") || !strings.Contains(got, "guide.md") {
		t.Errorf("the broken link's warning was not said:\n%s", got)
	}
}
