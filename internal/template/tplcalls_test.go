package template

import (
	"fmt"
	"slices"
	"testing"

	"helm.sh/helm/v3/pkg/chart"
)

func TestTemplateCalls(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		lookups    []string // "line ns guarded"
		requireds  []string // "line path"
	}{
		{"guarded by if on a variable", `{{ $s := lookup "v1" "Secret" .Release.Namespace .Values.name }}
{{ if and $s $s.data }}{{ index $s.data "k" }}{{ end }}`, []string{"1 release true"}, nil},
		{"guarded by with", `{{ with lookup "v1" "Secret" $.Release.Namespace "x" }}{{ .data.k }}{{ end }}`, []string{"1 release true"}, nil},
		{"default is a check", `{{ $s := default dict (lookup "v1" "Secret" .Release.Namespace "x") }}`, []string{"1 release true"}, nil},
		{"namespace through a variable", `{{ $ns := .Release.Namespace }}{{ if lookup "v1" "Secret" $ns "x" }}y{{ end }}`, []string{"1 release true"}, nil},
		{"printed", `{{ lookup "v1" "Secret" .Release.Namespace "x" | toYaml }}`, []string{"1 release false"}, nil},
		{"field of the result", `{{ (lookup "v1" "Secret" .Release.Namespace "x").data.k }}`, []string{"1 release false"}, nil},
		{"used outside its if", `{{ $s := lookup "v1" "Secret" .Release.Namespace "x" }}{{ if $s }}y{{ end }}{{ $s.data }}`, []string{"1 release false"}, nil},
		{"used in the else", `{{ $s := lookup "v1" "Secret" .Release.Namespace "x" }}{{ if $s }}y{{ else }}{{ $s.data }}{{ end }}`, []string{"1 release false"}, nil},
		{"cluster", `{{ if lookup "v1" "Namespace" "" "x" }}y{{ end }}`, []string{"1 cluster true"}, nil},
		{"other", `{{ if lookup "v1" "Secret" "kcm-system" "x" }}y{{ end }}`, []string{"1 other true"}, nil},
		{"dynamic", `{{ if lookup "v1" "Secret" .Values.ns "x" }}y{{ end }}`, []string{"1 dynamic true"}, nil},
		{"required", `a: {{ required "m" .Values.a.b | quote }}
b: {{ .Values.c | required "m" }}
{{- with .Values.sa }}
c: {{ required "m" .email }}
{{- end }}
{{- range .Values.list }}
d: {{ required "m" .name }}
{{- end }}`, nil, []string{"1 a.b", "2 c", "4 sa.email", "7 "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := &chart.Chart{Metadata: &chart.Metadata{Name: "c"}, Templates: []*chart.File{{Name: "templates/x.yaml", Data: []byte(tc.text)}}}
			lookups, requireds, _ := templateCalls(ch, func(s string) string { return s })
			var gotL, gotR []string
			for _, l := range lookups {
				ns := map[nsScope]string{nsRelease: "release", nsCluster: "cluster", nsOther: "other", nsDynamic: "dynamic"}[l.ns]
				gotL = append(gotL, fmt.Sprintf("%d %s %v", l.line, ns, l.guarded))
			}
			for _, r := range requireds {
				gotR = append(gotR, fmt.Sprintf("%d %s", r.line, r.path))
			}
			if !slices.Equal(gotL, tc.lookups) || !slices.Equal(gotR, tc.requireds) {
				t.Errorf("lookups %q, want %q; requireds %q, want %q", gotL, tc.lookups, gotR, tc.requireds)
			}
		})
	}
}
