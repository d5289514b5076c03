package nodeimage

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestPruneImages: after a build, the images of the repository but the
// one built and the newest other are removed; one a container uses stays.
func TestPruneImages(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine: not with -short")
	}
	d, err := newDocker()
	if err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	if err := d.ping(ctx); err != nil {
		t.Skip(err)
	}
	repo := fmt.Sprintf("%s/prune-test-%d", localRegistry, len(t.Name()))
	// One distinct image per call, created after the one before.
	n := 0
	image := func(tag string) string {
		t.Helper()
		n++
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		data := []byte(fmt.Sprintf("image %d\n", n))
		tw.WriteHeader(&tar.Header{Name: "f", Mode: 0o644, Size: int64(len(data))})
		tw.Write(data)
		tw.Close()
		if _, err := d.run(ctx, &b, "import", "-", repo+":"+tag); err != nil {
			t.Fatal(err)
		}
		id, err := d.imageID(ctx, repo+":"+tag)
		if err != nil || id == "" {
			t.Fatalf("image %s: %q %v", tag, id, err)
		}
		return id
	}
	tags := func() []string {
		out, _ := d.run(ctx, nil, "image", "ls", repo, "--format", "{{.Tag}}")
		f := strings.Fields(out)
		slices.Sort(f)
		return f
	}
	t.Cleanup(func() {
		for _, tag := range tags() {
			d.run(context.Background(), nil, "image", "rm", "-f", repo+":"+tag)
		}
	})
	image("oldest")
	image("older")
	used := image("used")
	if _, err := d.run(ctx, nil, "create", "--name", "kbook-prune-test", "--label", BuildLabel+"=test", used, "/f"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.run(context.Background(), nil, "rm", "-f", "kbook-prune-test") })
	image("newer")
	id := image("current")

	gone := d.pruneImages(ctx, repo, repo+":current", 1)
	if got, want := tags(), []string{"current", "newer", "used"}; !slices.Equal(got, want) {
		t.Errorf("left %v, want %v (removed %v)", got, want, gone)
	}
	if now, _ := d.imageID(ctx, repo+":current"); now != id {
		t.Errorf("current is %s, want %s", shortID(now), shortID(id))
	}
	if len(gone) != 2 {
		t.Errorf("removed %v, want oldest and older", gone)
	}
}

// TestOrphanBuild: only a build container of a kbook that no longer runs
// is reaped - never a kind node, whose image carries the build label it
// was committed with (the fault that deleted a running cluster's node).
func TestOrphanBuild(t *testing.T) {
	dead := func(int) bool { return false }
	live := func(int) bool { return true }
	for _, c := range []struct {
		name, pid string
		alive     func(int) bool
		want      bool
	}{
		{"kbook-node-build-123", "123", dead, true},
		{"kbook-node-build-123", "123", live, false},
		{"kbook-control-plane", "123", dead, false},
		{"acme-dev-cp-x7k2", "123", dead, false},
		{"kbook-node-build-123", "", dead, false},
		{"kbook-node-build-124", "123", dead, false},
	} {
		if got := orphanBuild(c.name, c.pid, c.alive); got != c.want {
			t.Errorf("%s (label %q): %v, want %v", c.name, c.pid, got, c.want)
		}
	}
}
