package kubeversion

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "v1.32.5+k0s.0", want: "v1.32.5"},
		{in: "1.31.2", want: "v1.31.2"},
		{in: "v1.36", want: "v1.36.0"},
		{in: " v1.30.1 ", want: "v1.30.1"},
		{in: "v1.33.0-rc.1+k0s.0", want: "v1.33.0-rc.1"},
		{in: "latest", err: `"latest" is not a version`},
		{in: "", err: `"" is not a version`},
	} {
		v, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) error = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || v.String() != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %s", tc.in, v, err, tc.want)
		}
	}
}

func TestFromTemplate(t *testing.T) {
	k0sDefaults := map[string]any{"k0s": map[string]any{"version": "v1.36.3+k0s.2"}}
	for _, tc := range []struct {
		name        string
		spec        string
		annotations map[string]string
		defaults    map[string]any
		config      map[string]any
		want        string // Source.String()
		declared    bool
		err         string
	}{
		{name: "k0s default", defaults: k0sDefaults, want: "v1.36.3 (chart default k0s.version)"},
		{name: "config overrides the default", defaults: k0sDefaults,
			config: map[string]any{"k0s": map[string]any{"version": "v1.35.1+k0s.0"}},
			want:   "v1.35.1 (config k0s.version)"},
		{name: "config without the key keeps the default", defaults: k0sDefaults,
			config: map[string]any{"k0s": map[string]any{"arch": "arm64"}},
			want:   "v1.36.3 (chart default k0s.version)"},
		{name: "spec.k8sVersion wins", spec: "v1.34.0", defaults: k0sDefaults,
			annotations: map[string]string{AnnotationK8sVersion: "v1.33.0"},
			want:        "v1.34.0 (spec.k8sVersion)", declared: true},
		{name: "annotation", annotations: map[string]string{AnnotationK8sVersion: "1.33.2"}, defaults: k0sDefaults,
			want: "v1.33.2 (annotation k0rdent.mirantis.com/k8s-version)", declared: true},
		{name: "managed template kubernetes.version (EKS)",
			defaults: map[string]any{"kubernetes": map[string]any{"version": "v1.36.1"}},
			want:     "v1.36.1 (chart default kubernetes.version)"},
		{name: "GKE version null lets the cloud pick", defaults: map[string]any{"version": nil}, want: "unknown"},
		{name: "config null overrides a default", defaults: map[string]any{"version": "1.30.1"},
			config: map[string]any{"version": nil}, want: "unknown"},
		{name: "nothing", defaults: map[string]any{"workersNumber": 2}, want: "unknown"},
		{name: "bad annotation", annotations: map[string]string{AnnotationK8sVersion: "one"},
			err: "annotation k0rdent.mirantis.com/k8s-version: \"one\" is not a version"},
		{name: "bad value", defaults: map[string]any{"k0s": map[string]any{"version": "stable"}},
			err: `values k0s.version: "stable" is not a version`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FromTemplate(tc.spec, tc.annotations, tc.defaults, tc.config)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tc.want || got.Declared != tc.declared {
				t.Errorf("got %s (declared %v), want %s (declared %v)", got, got.Declared, tc.want, tc.declared)
			}
		})
	}
}

func TestCheckUpgrade(t *testing.T) {
	for _, tc := range []struct {
		from, to, rule string
	}{
		{"v1.31.5", "v1.31.7", ""},
		{"v1.31.5", "v1.32.0", ""},
		{"v1.31.5+k0s.0", "v1.31.5+k0s.1", ""},
		{"v1.31.5", "v1.33.1", RuleMinorSkip},
		{"v1.32.0", "v1.31.9", RuleDowngrade},
		{"v1.32.3", "v1.32.1", RuleDowngrade},
		{"v1.32.3", "v2.0.0", RuleMajorChange},
	} {
		ps := CheckUpgrade(MustParse(tc.from), MustParse(tc.to))
		got := ""
		if len(ps) > 0 {
			got = ps[0].Rule
		}
		if got != tc.rule {
			t.Errorf("%s → %s: rule %q, want %q (%v)", tc.from, tc.to, got, tc.rule, ps)
		}
	}
	p := CheckUpgrade(MustParse("v1.31.5"), MustParse("v1.34.0"))[0]
	if !strings.Contains(p.Message, "skips 2 minor version(s)") || !strings.Contains(p.Message, "v1.32 first") {
		t.Errorf("message %q", p.Message)
	}
}

func TestCheckKubelet(t *testing.T) {
	for _, tc := range []struct {
		apiserver, kubelet, rule string
	}{
		{"v1.32.0", "v1.32.0", ""},
		{"v1.32.0", "v1.29.4", ""},
		{"v1.32.0", "v1.28.9", RuleKubeletTooOld},
		{"v1.27.3", "v1.25.0", ""},
		{"v1.27.3", "v1.24.0", RuleKubeletTooOld}, // two minors before 1.28
		{"v1.31.0", "v1.32.0", RuleKubeletNewer},
		{"v1.31.0", "v1.31.9", ""}, // a newer patch is no minor skew
	} {
		p := CheckKubelet(MustParse(tc.apiserver), MustParse(tc.kubelet))
		got := ""
		if p != nil {
			got = p.Rule
		}
		if got != tc.rule {
			t.Errorf("apiserver %s kubelet %s: %q, want %q", tc.apiserver, tc.kubelet, got, tc.rule)
		}
	}
}

func TestSatisfies(t *testing.T) {
	for _, tc := range []struct {
		v, c string
		ok   bool
	}{
		{"v1.32.5+k0s.0", ">=1.30.0 <1.33.0", true},
		{"v1.33.0", ">=1.30.0 <1.33.0", false},
		{"v1.31.0", "~1.31", true},
	} {
		got, err := MustParse(tc.v).Satisfies(tc.c)
		if err != nil || got != tc.ok {
			t.Errorf("%s satisfies %q = %v, %v; want %v", tc.v, tc.c, got, err, tc.ok)
		}
	}
	if _, err := MustParse("v1.1.0").Satisfies(">>1"); err == nil {
		t.Error("bad constraint: no error")
	}
}
