package kubesec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/k0rdent/kbook/internal/findings"
)

// objects reads testdata/objects.yaml.
func objects(t *testing.T) []map[string]any {
	t.Helper()
	data, err := os.ReadFile("testdata/objects.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var o map[string]any
		if err := dec.Decode(&o); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
}

func TestPodIssues(t *testing.T) {
	for _, o := range objects(t) {
		md := o["metadata"].(map[string]any)
		t.Run(md["name"].(string), func(t *testing.T) {
			var want []string
			for _, l := range strings.Split(md["annotations"].(map[string]any)["want"].(string), "\n") {
				if l = strings.TrimSpace(l); l != "" {
					want = append(want, l)
				}
			}
			var got []string
			PodIssues(o, func(is Issue) {
				if is.Message == "" {
					t.Errorf("%s %s: no message", is.Check, is.Path)
				}
				got = append(got, string(is.Check)+" "+is.Path.String())
			})
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("PodIssues:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestImages(t *testing.T) {
	var got []string
	for _, o := range objects(t) {
		Images(o, func(p findings.Path, key, image string) {
			got = append(got, fmt.Sprintf("%s=%s", p, image))
		})
	}
	want := []string{
		"spec.template.spec.containers[0].image=registry.example.com/capi/manager:v1",
		"spec.template.spec.initContainers[0].image=busybox",
		"spec.template.spec.bootstrapPod.spec.containers[0].image=registry.k8s.io/pause:3.10",
		"spec.template.spec.customImage=kindest/node:v1.34.1",
		"spec.template.spec.containers[0].image=registry.example.com/capi/manager:v1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Images:\n got %q\nwant %q", got, want)
	}
}

func TestRegistry(t *testing.T) {
	for _, c := range []struct {
		image, key string
		allowed    []string
		registry   string
		ok         bool
	}{
		{"kindest/node:v1.34.1", "customImage", []string{"registry.example.com"}, "docker.io", false},
		{"nginx", "image", []string{"docker.io"}, "docker.io", true},
		{"nginx", "image", []string{"docker.io/library"}, "docker.io", true},
		{"registry.example.com/mirror/node:1", "image", []string{"registry.example.com/mirror"}, "registry.example.com", true},
		{"registry.example.com/other/node:1", "image", []string{"registry.example.com/mirror"}, "registry.example.com", false},
		{"registry.example.com.evil.io/node:1", "image", []string{"registry.example.com"}, "registry.example.com.evil.io", false},
		{"localhost:5000/node:1", "image", []string{"localhost:5000"}, "localhost:5000", true},
		{"registry.k8s.io", "imageRepository", []string{"registry.k8s.io"}, "registry.k8s.io", true},
		{"registry.example.com", "imageRepository", []string{"https://registry.example.com/"}, "registry.example.com", true},
		{"registry.example.com/x@sha256:abc", "image", []string{"oci://registry.example.com/x"}, "registry.example.com", true},
	} {
		if got := Registry(c.image, c.key); got != c.registry {
			t.Errorf("Registry(%q) = %q, want %q", c.image, got, c.registry)
		}
		if got := RegistryAllowed(c.image, c.key, c.allowed); got != c.ok {
			t.Errorf("RegistryAllowed(%q, %q) = %v", c.image, c.allowed, got)
		}
	}
}

func TestRules(t *testing.T) {
	var role map[string]any
	if err := yaml.Unmarshal([]byte(`
kind: ClusterRole
rules:
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, list]
- apiGroups: [infrastructure.acme.io]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: [""]
  resources: [configmaps]
  resourceNames: [acme-config]
  verbs: [get]
`), &role); err != nil {
		t.Fatal(err)
	}
	rs := Rules(role)
	if len(rs) != 3 || rs[1].Path.String() != "rules[1]" || !slices.Equal(rs[0].Verbs, []string{"get", "list"}) {
		t.Fatalf("Rules = %+v", rs)
	}
	for _, c := range []struct {
		rule                  int
		group, resource, verb string
		want                  bool
	}{
		{0, "", "secrets", "get", true},
		{0, "", "secrets", "watch", false},
		{1, "infrastructure.acme.io", "acmeclusters", "delete", true},
		{1, "apps", "deployments", "get", false},
		{2, "", "configmaps", "get", false}, // limited to a name
	} {
		if got := rs[c.rule].Grants(c.group, c.resource, c.verb); got != c.want {
			t.Errorf("rules[%d].Grants(%q, %q, %q) = %v", c.rule, c.group, c.resource, c.verb, got)
		}
	}
}

func TestLooksLikeCredential(t *testing.T) {
	for _, c := range []struct {
		name, value string
		want        bool
	}{
		{"AWS_SECRET_ACCESS_KEY", "abc", true},
		{"apiKey", "abc", true},
		{"PASSWORD", "${PASSWORD}", false},
		{"PASSWORD", "${PASSWORD:=hunter2}", false},
		{"TOKEN", " ", false},
		{"TOKEN_FILE", "/x", false},
		{"SECRET_NAME", "creds", false},
		{"LOG_LEVEL", "debug", false},
	} {
		if got := LooksLikeCredential(c.name, c.value); got != c.want {
			t.Errorf("LooksLikeCredential(%q, %q) = %v", c.name, c.value, got)
		}
	}
}
