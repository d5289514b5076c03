package template

import (
	"reflect"
	"slices"
	"testing"
)

func TestParseFieldPath(t *testing.T) {
	obj := map[string]any{"spec": map[string]any{
		"devices": []any{map[string]any{"networkName": ""}},
		"labels":  map[string]any{"app.kubernetes.io/name": "x"},
		"filter":  map[string]any{},
	}}
	for _, tc := range []struct {
		path   string
		want   vpath
		val    any
		found  bool
		broken bool
	}{
		{"spec.devices[0].networkName", vpath{"spec", "devices", 0, "networkName"}, "", true, false},
		{"spec.labels[app.kubernetes.io/name]", vpath{"spec", "labels", "app.kubernetes.io/name"}, "x", true, false},
		{"spec.filter", vpath{"spec", "filter"}, map[string]any{}, true, false},
		// A missing last key is a nil value; a missing parent is not found.
		{"spec.filter.name", vpath{"spec", "filter", "name"}, nil, true, false},
		{"spec.missing.name", vpath{"spec", "missing", "name"}, nil, false, false},
		{"spec.devices[3].networkName", vpath{"spec", "devices", 3, "networkName"}, nil, false, false},
		{"spec.devices[0", nil, nil, false, true},
	} {
		p, ok := parseFieldPath(tc.path)
		if ok == tc.broken {
			t.Errorf("%s: parse ok %v", tc.path, ok)
			continue
		}
		if !ok {
			continue
		}
		if !reflect.DeepEqual(p, tc.want) {
			t.Errorf("%s: parsed %#v, want %#v", tc.path, p, tc.want)
		}
		val, found := fieldAt(obj, p)
		if found != tc.found || !reflect.DeepEqual(val, tc.val) {
			t.Errorf("%s: lookup %#v %v, want %#v %v", tc.path, val, found, tc.val, tc.found)
		}
	}
}

func TestMarkersIn(t *testing.T) {
	v := map[string]any{"a": []any{"x-" + emptyMarker + "0003-y", map[string]any{emptyMarker + "0012": emptyMarker + "0012"}}}
	got := markersIn(v)
	if len(got) != 3 || !slices.Contains(got, 3) || !slices.Contains(got, 12) {
		t.Errorf("markersIn = %v, want 3, 12, 12", got)
	}
}
