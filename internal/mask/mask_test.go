package mask

import (
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
