package helmrepo

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/cli"
	"helm.sh/helm/v3/pkg/getter"
	"helm.sh/helm/v3/pkg/repo"
)

func testChart(version, cm string) *chart.Chart {
	return &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: "demo", Version: version,
			Annotations: map[string]string{"cluster.x-k8s.io/provider": "infrastructure-docker"}},
		Templates: []*chart.File{{Name: "templates/cm.yaml", Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + cm + "\n")}},
	}
}

// repackLater is archive as Package would write it d later: the same
// files, every time stamp moved by d (Helm stamps the time of packaging),
// without waiting d.
func repackLater(t *testing.T, archive []byte, d time.Duration) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Header = zr.Header
	zw.ModTime = zr.ModTime.Add(d)
	tr, tw := tar.NewReader(zr), tar.NewWriter(zw)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		hdr.ModTime = hdr.ModTime.Add(d)
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(tw, tr); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestServeAndUpload: a chart added in-process and one uploaded over
// HTTP are both in the index Helm's own client downloads, and a version
// cannot be reused for other content.
func TestServeAndUpload(t *testing.T) {
	s, err := Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.AddChart(testChart("0.1.0", "a")); err != nil {
		t.Fatal(err)
	}
	archive, err := Package(testChart("0.2.0", "b"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := Upload(ctx, s.URL(), archive); err != nil {
		t.Fatal(err)
	}
	// The same content again is fine, even packaged anew (archives carry
	// the time); other content under 0.2.0 is not.
	if err := Upload(ctx, s.URL(), archive); err != nil {
		t.Errorf("re-upload of the same archive: %v", err)
	}
	// Packaged anew a second later: the same files under later times.
	again := repackLater(t, archive, time.Second)
	if bytes.Equal(again, archive) {
		t.Fatal("the archive packaged later has the same bytes")
	}
	if err := Upload(ctx, s.URL(), again); err != nil {
		t.Errorf("re-upload of the same chart packaged again: %v", err)
	}
	other, _ := Package(testChart("0.2.0", "c"))
	if err := Upload(ctx, s.URL(), other); err == nil || !strings.Contains(err.Error(), "bump the chart version") {
		t.Errorf("reused version: %v", err)
	}
	if _, err := s.AddChart(testChart("0.2.0", "c")); !errors.Is(err, ErrExists) {
		t.Errorf("AddChart reused version: %v", err)
	}
	if err := Upload(ctx, s.URL(), []byte("not a chart")); err == nil {
		t.Error("garbage accepted")
	}

	// Helm's own repository client reads the index and fetches the chart.
	cr, err := repo.NewChartRepository(&repo.Entry{Name: "kbook", URL: s.URL()}, getter.All(cli.New()))
	if err != nil {
		t.Fatal(err)
	}
	cr.CachePath = t.TempDir()
	idxPath, err := cr.DownloadIndexFile()
	if err != nil {
		t.Fatal(err)
	}
	idx, err := repo.LoadIndexFile(idxPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"0.1.0", "0.2.0"} {
		cv, err := idx.Get("demo", v)
		if err != nil {
			t.Fatalf("index lacks demo %s: %v", v, err)
		}
		resp, err := http.Get(cv.URLs[0])
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) == 0 {
			t.Errorf("GET %s: %s", cv.URLs[0], resp.Status)
		}
	}
	resp, err := http.Get(s.URL() + "/charts/..%2f..%2fetc%2fpasswd")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Error("path traversal served a file")
		}
	}
}
