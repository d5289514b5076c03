package runbook

import (
	"testing"
)

// TestWatch: the commands that run until interrupted are found in the
// foreground only, not when bounded by timeout or sent to the
// background.
func TestWatch(t *testing.T) {
	for _, tc := range []struct {
		block string
		want  string // the Watch's command, "" for none
		line  int
		ends  bool
	}{
		{"kubectl get pods -w", "kubectl get pods -w", 1, false},
		{"echo hi\nkubectl -n kcm-system get management --watch", "kubectl -n kcm-system get management --watch", 2, false},
		{"kubectl get pods --watch=false", "", 0, false},
		{"kubectl get pods -o wide", "", 0, false},
		{"kubectl logs -f deploy/web | grep ready", "kubectl logs -f deploy/web", 1, false},
		{"kubectl wait --for=condition=Ready pod/web", "kubectl wait --for=condition=Ready pod/web", 1, true},
		{"kubectl wait --for=condition=Ready pod/web --timeout=60s", "", 0, false},
		{"kubectl wait --for=condition=Ready pod/web --timeout=-1s", "kubectl wait --for=condition=Ready pod/web --timeout=-1s", 1, false},
		{"kubectl port-forward svc/web 8080:80 &\ncurl localhost:8080", "", 0, false},
		{"timeout 30 kubectl get pods -w", "", 0, false},
		{"tail -f /var/log/syslog", "tail -f /var/log/syslog", 1, false},
		{"watch kubectl get pods", "watch kubectl get pods", 1, false},
		{"f() { kubectl get pods -w; }", "", 0, false},
		{"( kubectl get pods -w & )\nkubectl rollout status deploy/web", "", 0, false},
	} {
		src := "---\nrun: shell\n---\n\n```bash\n" + tc.block + "\n```\n"
		rb, err := Parse("page.md", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		w := rb.Steps[0].Shell.Needs.Watch
		switch {
		case tc.want == "" && w != nil:
			t.Errorf("%q: Watch = %+v, want none", tc.block, w)
		case tc.want != "" && (w == nil || w.Command != tc.want || w.Line != tc.line+5 || w.Ends != tc.ends):
			t.Errorf("%q: Watch = %+v, want %q at line %d, ends %v", tc.block, w, tc.want, tc.line+5, tc.ends)
		}
	}
}
