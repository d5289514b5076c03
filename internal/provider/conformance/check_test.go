package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadSamples(t *testing.T) {
	for _, tc := range []struct {
		name     string
		file     string
		wantKind string
		wantErr  string
	}{
		{"object", "machine.yaml", "AcmeMachine", ""},
		{"YAML that does not parse", "broken.yaml", "", "broken.yaml: not a Kubernetes object"},
		{"no kind", "no-kind.yaml", "", "no-kind.yaml: not a Kubernetes object"},
		{"missing", "missing.yaml", "", "missing.yaml: no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := loadSamples([]string{filepath.Join("testdata", tc.file)})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || s[tc.wantKind] == nil || s[tc.wantKind].GetName() != "sample" {
				t.Errorf("samples %v, %v", s, err)
			}
		})
	}
}

func TestWrite(t *testing.T) {
	out := &Outcome{Backend: "local", Result: &Result{
		Checks: []Check{{Name: "CRD installs", Status: Pass}, {Name: "providerID", Status: Fail, Message: "not set"}},
		Notes:  []string{"aggregation computed by kbook"},
	}}
	var text, js bytes.Buffer
	if err := Write(&text, "text", out); err != nil {
		t.Fatal(err)
	}
	want := "pass CRD installs\nfail providerID: not set\nnote: aggregation computed by kbook\n2 checks, 1 failed (on local)\n"
	if got := text.String(); got != want {
		t.Errorf("text:\n%s\nwant:\n%s", got, want)
	}
	if err := Write(&js, "json", out); err != nil {
		t.Fatal(err)
	}
	var doc Result
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || len(doc.Checks) != 2 || strings.Contains(js.String(), "local") {
		t.Errorf("json %s: %v", js.String(), err)
	}
}

// TestRunDoneContext: a context already done checks nothing, not even
// the inputs.
func TestRunDoneContext(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stopped")
	cancel(stop)
	if _, err := Run(ctx, Options{Paths: []string{"missing"}}); !errors.Is(err, stop) {
		t.Errorf("done context: %v, want its cause", err)
	}
}
