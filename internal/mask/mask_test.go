package mask

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
)

func TestMask(t *testing.T) {
	tests := []struct {
		name, in, want string
		literals       []string
	}{
		{"bearer", "Authorization: Bearer abcdefghijklmnop", "Authorization: Bearer ***", nil},
		{"kubeconfig key", "    client-key-data: LS0tLS1CRUdJTiBSU0E=\n", "    client-key-data: ***\n", nil},
		{"kubeconfig cert", "    client-certificate-data: LS0tLS1CRUdJTg==", "    client-certificate-data: ***", nil},
		{"kubeconfig token", "  - name: u\n    user:\n      token: abc.def-ghi\n", "  - name: u\n    user:\n      token: ***\n", nil},
		{"json password", `  "password": "hunter22"`, `  "password": "***"`, nil},
		{"pem", "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIabc\ndef\n-----END RSA PRIVATE KEY-----\ny", "x\n-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----\ny", nil},
		{"jwt", "token eyJhbGciOiJSUzI1.eyJpc3MiOiJrdWJl.c2lnbmF0dXJlMTIz end", "token *** end", nil},
		{"literal", "the value is s3cr3t-value here", "the value is *** here", []string{"s3cr3t-value"}},
		{"short literal ignored", "a 1 b", "a 1 b", []string{"1"}},
		{"longest literal first", "abcdefgh", "***", []string{"abcd", "abcdefgh"}},
		{"ca data kept", "    certificate-authority-data: LS0t", "    certificate-authority-data: LS0t", nil},
		{"plain text kept", "namespace/default created", "namespace/default created", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := New(tc.literals...).Mask(tc.in)
			if got != tc.want {
				t.Errorf("Mask(%q) =\n%q\nwant\n%q", tc.in, got, tc.want)
			}
		})
	}
}

func TestSecretValues(t *testing.T) {
	env := []string{"GITHUB_TOKEN=ghp_1234", "DB_PASSWORD=pw-9876", "HOME=/root", "MY_SECRET=", "api_key=k-0000"}
	got := strings.Join(SecretValues(env), ",")
	if got != "ghp_1234,pw-9876,k-0000" {
		t.Fatalf("SecretValues = %q", got)
	}
}

// TestEncodings: a secret is masked in the forms tools print it in - a
// Kubernetes Secret's base64 data (alone, or inside a longer value at any
// offset), with echo's newline, URL-safe, hex, JSON-escaped, in a URL's
// query or path (percent-encoded in upper or lower case).
func TestEncodings(t *testing.T) {
	const secret = `s3cr3t-"value"/+`
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	m := New(secret)
	for _, tc := range []struct{ name, printed string }{
		{"base64", b64(secret)},
		{"base64 of echo's output", b64(secret + "\n")},
		{"url-safe base64", base64.URLEncoding.EncodeToString([]byte(secret))},
		{"hex", hex.EncodeToString([]byte(secret))},
		{"json", `"s3cr3t-\"value\"/+"`},
		{"url query", url.QueryEscape(secret)},
		{"url query, lower-case hex", "s3cr3t-%22value%22%2f%2b"},
		{"url path", url.PathEscape(secret)},
		{"url path, lower-case hex", "s3cr3t-%22value%22%2f+"},
		{"base64 inside a value, offset 0", b64("abc" + secret + "tail")},
		{"base64 inside a value, offset 1", b64("a" + secret + "tail")},
		{"base64 inside a value, offset 2", b64("ab" + secret + "tail")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := m.Mask("data: " + tc.printed + "\n")
			if !strings.Contains(out, Redacted) {
				t.Fatalf("not masked: %q", out)
			}
			// What stays visible is at most the few characters that
			// mix the secret's bytes with its neighbours'.
			if rest := strings.ReplaceAll(strings.TrimSpace(strings.TrimPrefix(out, "data: ")), Redacted, ""); len(rest) > len(tc.printed)-len(secret) {
				t.Errorf("%q left visible from %q", rest, tc.printed)
			}
		})
	}
	// Other base64 is left alone.
	if other := b64("namespace/default"); m.Mask(other) != other {
		t.Errorf("unrelated base64 masked: %q", m.Mask(other))
	}
}
