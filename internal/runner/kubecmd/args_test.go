package kubecmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseAwaitArgs(t *testing.T) {
	usage := "\n" + awaitUsage
	tests := []struct {
		name string
		args string
		neg  bool
		want awaitArgs // cond compared by text only
		err  string
	}{
		{name: "type/name", args: "--for=condition=Ready clustertemplate/foo",
			want: awaitArgs{timeout: 30 * time.Second, interval: 500 * time.Millisecond, cond: condition{text: "condition=Ready"}, targets: []targetArg{{"clustertemplate", "foo"}}}},
		{name: "several type/name, flags after", args: "crd/a ns/b --for delete --timeout 1m -n x",
			want: awaitArgs{namespace: "x", timeout: time.Minute, interval: 500 * time.Millisecond, cond: condition{text: "delete"}, targets: []targetArg{{"crd", "a"}, {"ns", "b"}}}},
		{name: "type then names", args: "--namespace=y --interval=2s --for=create clustertemplates.k0rdent.mirantis.com a b",
			want: awaitArgs{namespace: "y", timeout: 30 * time.Second, interval: 2 * time.Second, cond: condition{text: "create"}, targets: []targetArg{{"clustertemplates.k0rdent.mirantis.com", "a"}, {"clustertemplates.k0rdent.mirantis.com", "b"}}}},
		{name: "selector", args: "--for=condition=Ready pod -l app=web,tier!=db",
			want: awaitArgs{timeout: 30 * time.Second, interval: 500 * time.Millisecond, cond: condition{text: "condition=Ready"}, selector: "app=web,tier!=db", targets: []targetArg{{"pod", ""}}}},
		{name: "all", args: "--all --for=delete pods",
			want: awaitArgs{timeout: 30 * time.Second, interval: 500 * time.Millisecond, cond: condition{text: "delete"}, all: true, targets: []targetArg{{"pods", ""}}}},
		{name: "negated default timeout", args: "--for=delete cm/x", neg: true,
			want: awaitArgs{timeout: 5 * time.Second, interval: 500 * time.Millisecond, cond: condition{text: "delete"}, targets: []targetArg{{"cm", "x"}}}},
		{name: "negated explicit timeout", args: "--timeout=0 --for=delete cm/x", neg: true,
			want: awaitArgs{timeout: 0, interval: 500 * time.Millisecond, cond: condition{text: "delete"}, targets: []targetArg{{"cm", "x"}}}},
		{name: "after --", args: "--for=create -- cm -x",
			want: awaitArgs{timeout: 30 * time.Second, interval: 500 * time.Millisecond, cond: condition{text: "create"}, targets: []targetArg{{"cm", "-x"}}}},

		{name: "no --for", args: "cm/x", err: "missing --for: " + forSyntax + usage},
		{name: "bad --for", args: "--for=ready cm/x", err: `unrecognized condition "ready": use ` + forSyntax},
		{name: "unknown flag", args: "--for=delete --wait cm/x", err: "unknown flag --wait" + usage},
		{name: "short flag unknown", args: "-A --for=delete cm/x", err: "unknown flag -A" + usage},
		{name: "flag without value", args: "cm/x --for", err: "flag --for needs a value" + usage},
		{name: "bad timeout", args: "--timeout=5 --for=delete cm/x", err: "--timeout=5: not a duration (use e.g. 30s, 2m, 500ms)" + usage},
		{name: "negative timeout", args: "--timeout=-1s --for=delete cm/x", err: "--timeout=-1s: must not be negative" + usage},
		{name: "zero interval", args: "--interval=0s --for=delete cm/x", err: "--interval must be positive"},
		{name: "bad bool", args: "--all=maybe --for=delete cm", err: "--all=maybe: not a boolean" + usage},
		{name: "empty namespace", args: "-n= --for=delete cm/x", err: "-n=: empty value" + usage},
		{name: "no objects", args: "--for=delete", err: "no objects given" + usage},
		{name: "type without name", args: "--for=delete cm", err: "no name given for cm: use cm/NAME, cm NAME..., -l SELECTOR or --all" + usage},
		{name: "mixed forms", args: "--for=delete cm/x y", err: "y: use TYPE/NAME for every object when the first one is given as TYPE/NAME" + usage},
		{name: "empty name", args: "--for=delete cm/", err: "cm/: expected TYPE/NAME" + usage},
		{name: "too many slashes", args: "--for=delete cm/a/b", err: "cm/a/b: expected TYPE/NAME" + usage},
		{name: "slash after type", args: "--for=delete cm a/b", err: "a/b: after a separate TYPE give plain names" + usage},
		{name: "several types", args: "--for=delete cm,secret x", err: "cm,secret: give one resource type (or use TYPE/NAME for each object)" + usage},
		{name: "selector and name", args: "--for=delete cm x -l a=b", err: "names (x) cannot be combined with -l or --all" + usage},
		{name: "selector and type/name", args: "--for=delete cm/x -l a=b", err: "cm/x names an object: leave out -l and --all, or give only its type" + usage},
		{name: "selector and all", args: "--for=delete cm -l a=b --all", err: "-l and --all cannot be used together" + usage},
		{name: "bad selector", args: "--for=delete cm -l a=(b", err: "-l a=(b: unable to parse requirement: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseAwaitArgs(strings.Fields(tc.args), tc.neg)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error = %v\nwant %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.cond = condition{text: got.cond.text}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseAssertArgs(t *testing.T) {
	tests := []struct {
		args string
		want assertArgs
		err  string
	}{
		{"ct.yaml", assertArgs{timeout: 30 * time.Second, interval: 500 * time.Millisecond, files: []string{"ct.yaml"}}, ""},
		{"a.yaml -n x --timeout=2m b.yaml --interval 1s", assertArgs{namespace: "x", timeout: 2 * time.Minute, interval: time.Second, files: []string{"a.yaml", "b.yaml"}}, ""},
		{"--timeout=1s", assertArgs{}, "no file given\n" + assertUsage},
		{"--for=x a.yaml", assertArgs{}, "unknown flag --for\n" + assertUsage},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			got, err := parseAssertArgs(strings.Fields(tc.args))
			if done := checkErr(t, err, tc.err); done {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseExpectations(t *testing.T) {
	type meta struct {
		source, apiVersion, kind, namespace, name string
		labels                                    map[string]string
	}
	tests := []struct {
		file string
		want []meta
		err  string
	}{
		{file: "two.yaml", want: []meta{
			{"two.yaml, document 1", "k0rdent.mirantis.com/v1beta1", "ClusterTemplate", "kcm-system", "demo", nil},
			{"two.yaml, document 2", "v1", "ConfigMap", "", "", map[string]string{"app.kubernetes.io/name": "web", "tier": "front"}},
		}},
		{file: "no-kind.yaml", err: "no-kind.yaml: kind is missing"},
		{file: "label-number.yaml", err: "label-number.yaml: metadata.labels.version must be a string (quote it), not 2"},
		{file: "bad-name.yaml", err: `bad-name.yaml: metadata.name must be a non-empty string, not a list of 1 item`},
		{file: "second-bad.yaml", err: "second-bad.yaml, document 2: apiVersion is missing"},
		{file: "bad-metadata.yaml", err: `bad-metadata.yaml: metadata must be a map, not "x"`},
		{file: "empty.yaml", err: "empty.yaml: no YAML documents"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "expect", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			exps, err := parseExpectations(data, tc.file)
			if done := checkErr(t, err, tc.err); done {
				return
			}
			var got []meta
			for _, e := range exps {
				got = append(got, meta{e.source, e.apiVersion, e.kind, e.namespace, e.name, e.labels})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
