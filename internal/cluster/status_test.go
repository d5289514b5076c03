package cluster

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestStatusOf: a cluster never brought up is ErrNoState; one whose
// process is gone is reported not running, with why, in every format.
func TestStatusOf(t *testing.T) {
	root := t.TempDir()
	if _, err := StatusOf(context.Background(), root, "none"); !errors.Is(err, ErrNoState) {
		t.Fatalf("no state: %v, want ErrNoState", err)
	}
	// A pid no process has (the kernel's pid_max is at most 4194304).
	s := &State{Name: "gone", Backend: Local, Server: "https://127.0.0.1:1", PID: 4194305, Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	if err := WriteState(root, s, []byte("apiVersion: v1\nkind: Config\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := StatusOf(context.Background(), root, "default"); !errors.Is(err, ErrNoState) || !strings.Contains(err.Error(), `"default"; up: gone (name one with --name)`) {
		t.Errorf("another name: %v, want ErrNoState naming the cluster that is up", err)
	}
	st, err := StatusOf(context.Background(), root, "gone")
	if err != nil {
		t.Fatal(err)
	}
	if st.Running || !strings.Contains(st.Error, "is not running") || st.Started != "2026-01-02T03:04:05Z" {
		t.Errorf("status %+v", st)
	}
	writesStatus(t, st, map[string]string{
		"text": "cluster:    gone (local)\nstatus:     not running: " + st.Error + "\n",
		"json": `"running": false`,
		"yaml": "running: false\n",
	})
}

// TestStatusPlaneDown: a controller the supervisor gave up on is listed
// as down, in every format, from the restarts file of the plane's logs.
func TestStatusPlaneDown(t *testing.T) {
	root := t.TempDir()
	s := &State{Name: "down", Backend: Local, Server: "https://127.0.0.1:1", PID: 4194305, PlaneLogs: "testdata/status-down"}
	if err := WriteState(root, s, []byte("apiVersion: v1\nkind: Config\n")); err != nil {
		t.Fatal(err)
	}
	st, err := StatusOf(context.Background(), root, "down")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Restarts) != 2 || len(st.Down) != 1 || st.Down[0] != "source-controller" {
		t.Fatalf("restarts %+v, down %v", st.Restarts, st.Down)
	}
	writesStatus(t, st, map[string]string{
		"text": "down:       source-controller (not restarted again",
		"json": "\"down\": [\n    \"source-controller\"\n  ]",
		"yaml": "down:\n- source-controller\n",
	})
}

// writesStatus checks that st written in each format holds what want
// says for it.
func writesStatus(t *testing.T, st *Status, want map[string]string) {
	t.Helper()
	for format, w := range want {
		var b bytes.Buffer
		if err := WriteStatus(&b, format, st); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), w) {
			t.Errorf("%s:\n%s\nwant %q in it", format, b.String(), w)
		}
	}
}

// TestStatusK0rdent: a cluster's Management is reported in every format,
// Ready or with the message of its Ready condition.
func TestStatusK0rdent(t *testing.T) {
	st := &Status{Name: "k", Backend: Kind, Running: true, K0rdent: &K0rdentState{Release: "kcm-1-11-4", Ready: true,
		Providers: []string{"bootstrap-kubeadm", "infrastructure-docker"}}}
	writesStatus(t, st, map[string]string{
		"text": "k0rdent:    Management kcm of release kcm-1-11-4, Ready\nproviders:  bootstrap-kubeadm, infrastructure-docker\n",
		"json": "\"k0rdent\": {\n    \"release\": \"kcm-1-11-4\",\n    \"ready\": true,",
		"yaml": "k0rdent:\n  providers:\n  - bootstrap-kubeadm\n",
	})
	st.K0rdent.Ready, st.K0rdent.Message = false, "Release kcm-1-11-4 is not ready"
	writesStatus(t, st, map[string]string{"text": "release kcm-1-11-4, not Ready: Release kcm-1-11-4 is not ready\n"})

	for _, c := range []struct {
		conds []any
		ready bool
		msg   string
	}{
		{nil, false, "no Ready condition yet"},
		{[]any{map[string]any{"type": "Other", "status": "True"}, map[string]any{"type": "Ready", "status": "False", "message": "waiting"}}, false, "waiting"},
		{[]any{map[string]any{"type": "Ready", "status": "True", "message": "ok"}}, true, "ok"},
	} {
		u := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": c.conds}}}
		if ready, msg := readyCondition(u); ready != c.ready || msg != c.msg {
			t.Errorf("%v: %v %q, want %v %q", c.conds, ready, msg, c.ready, c.msg)
		}
	}
}
