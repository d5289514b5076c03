package nodeimage

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/k0rdent/kbook/internal/gobuild"
	"github.com/k0rdent/kbook/internal/testctx"
)

// built skips unless an engine answers and the node image is built, and
// returns the engine, the options and the image's record.
func built(t *testing.T) (docker, *Options, Image) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a container engine: not with -short")
	}
	d, err := newDocker()
	if err != nil {
		t.Skip(err)
	}
	if err := d.ping(context.Background()); err != nil {
		t.Skip(err)
	}
	o := &Options{}
	o.defaults()
	key, err := Key()
	if err != nil {
		t.Fatal(err)
	}
	img, why, err := cached(context.Background(), d, o, key)
	if err != nil {
		t.Fatal(err)
	}
	if why != "" {
		t.Skipf("the node image: %s (kbook cluster image builds it; make test does before these tests)", why)
	}
	return d, o, img
}

// TestCacheStates: a record the engine agrees with is a hit, and so is one
// whose image the same build made again (another ID, the same key label);
// a corrupt record, a record of an image the engine no longer has, and one
// whose image changed are each a miss that says why.
func TestCacheStates(t *testing.T) {
	d, real, img := built(t)
	ctx := context.Background()
	// changed: an image at a reference of the repository that is not a
	// node image (no key label).
	changed := Repository + ":changed-" + img.Key[:8]
	if _, err := d.run(ctx, bytes.NewReader(make([]byte, 1024)), "import", "-", changed); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = d.run(context.Background(), nil, "image", "rm", changed) })
	o := &Options{CacheDir: t.TempDir()}
	o.defaults()
	os.MkdirAll(o.dir(), 0o755)
	write := func(content string) {
		if err := os.WriteFile(o.recordFile(img.Key), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	record := func(mod func(*Image)) string {
		c := img
		mod(&c)
		b, _ := json.Marshal(c)
		return string(b)
	}
	for _, c := range []struct{ name, record, why string }{
		{"hit", record(func(*Image) {}), ""},
		{"not built", "", "not built yet"},
		{"corrupt", "{\"ref\": ", "is corrupt"},
		{"another key", record(func(i *Image) { i.Key = strings.Repeat("0", 64) }), "is corrupt"},
		{"image gone", record(func(i *Image) { i.Ref = Repository + ":gone-" + img.Key[:8] }), "no longer has"},
		{"made again", record(func(i *Image) { i.ID = "sha256:" + strings.Repeat("1", 64) }), ""},
		{"image changed", record(func(i *Image) { i.Ref = changed }), "recorded"},
	} {
		os.Remove(o.recordFile(img.Key))
		if c.record != "" {
			write(c.record)
		}
		got, why, err := cached(ctx, d, o, img.Key)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.why == "" {
			if why != "" || !got.Cached || got.ID != img.ID {
				t.Errorf("%s: why %q, image %+v; want a hit", c.name, why, got)
			}
			continue
		}
		if !strings.Contains(why, c.why) {
			t.Errorf("%s: why = %q, want it to say %q", c.name, why, c.why)
		}
	}
	_ = real
}

// TestRebuildCorrupt: a corrupt cache record makes Build rebuild the image
// (the base and the binaries come from their own caches), with a warning,
// and record it again.
func TestRebuildCorrupt(t *testing.T) {
	_, o, img := built(t)
	ctx, cancel := testctx.New(t)
	defer cancel()
	if err := os.WriteFile(o.recordFile(img.Key), []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	var heard gobuild.Lines
	got, err := Build(ctx, Options{Logger: &heard})
	if err != nil {
		t.Fatal(err)
	}
	if got.Cached || got.Key != img.Key || got.Ref != img.Ref {
		t.Errorf("Build = %+v, want a new build of %s", got, img.Ref)
	}
	if !strings.Contains(heard.String(), "is corrupt: rebuilding it") {
		t.Errorf("no warning; heard:\n%s", heard.String())
	}
	again, err := Build(ctx, Options{})
	if err != nil || !again.Cached || again.ID != got.ID {
		t.Errorf("after the rebuild: %+v, %v; want a cache hit", again, err)
	}
}
