// Package mask removes secrets from captured command output before it is
// stored in the cache, written to reports or shown on the site.
//
// A Masker is a list of named sanitisers applied in order; each is one small
// value, so callers can add their own (kbook adds the values of secret-like
// environment variables of every runbook).
package mask

import (
	"regexp"
	"sort"
	"strings"
)

// Redacted replaces every masked secret.
const Redacted = "***"

// Sanitiser rewrites one kind of secret.
type Sanitiser struct {
	Name string
	Re   *regexp.Regexp
	// Repl is the regexp replacement template; "$1" keeps the key part.
	Repl string
}

// Defaults are the sanitisers every Masker starts with.
var Defaults = []Sanitiser{
	{"pem-private-key", regexp.MustCompile(`-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----`), "-----BEGIN ${1}PRIVATE KEY-----" + Redacted + "-----END ${1}PRIVATE KEY-----"},
	{"bearer-token", regexp.MustCompile(`(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}`), "${1}" + Redacted},
	{"kubeconfig-credential", regexp.MustCompile(`(?m)^([ \t]*-?[ \t]*"?(?:client-key-data|client-certificate-data|client-key|token|id-token|refresh-token|password)"?[ \t]*:[ \t]*)("?)[^\s"]\S*?("?)[ \t]*$`), "${1}${2}" + Redacted + "${3}"},
	{"jwt", regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), Redacted},
}

// Masker applies sanitisers and literal secret values to text.
type Masker struct {
	sanitisers []Sanitiser
	literals   []string
}

// New returns a Masker with the default sanitisers and the given literal
// secret values (empty and very short values are ignored: masking "1"
// everywhere would destroy the output without protecting anything).
func New(literals ...string) *Masker {
	m := &Masker{sanitisers: append([]Sanitiser(nil), Defaults...)}
	m.AddLiterals(literals...)
	return m
}

// AddSanitiser appends a sanitiser.
func (m *Masker) AddSanitiser(s Sanitiser) { m.sanitisers = append(m.sanitisers, s) }

// AddLiterals adds secret values to mask wherever they appear.
func (m *Masker) AddLiterals(values ...string) {
	for _, v := range values {
		if len(v) >= 4 {
			m.literals = append(m.literals, v)
		}
	}
	// Longest first, so a secret containing another is masked whole.
	sort.Slice(m.literals, func(i, j int) bool { return len(m.literals[i]) > len(m.literals[j]) })
}

// Mask returns s with every secret replaced by Redacted.
func (m *Masker) Mask(s string) string {
	if m == nil || s == "" {
		return s
	}
	for _, l := range m.literals {
		s = strings.ReplaceAll(s, l, Redacted)
	}
	for _, san := range m.sanitisers {
		s = san.Re.ReplaceAllString(s, san.Repl)
	}
	return s
}

// secretNames are the substrings that make an environment variable secret.
var secretNames = []string{"TOKEN", "PASSWORD", "SECRET", "PASSWD", "API_KEY", "APIKEY", "PRIVATE_KEY"}

// IsSecretName reports whether an environment variable name looks secret.
func IsSecretName(name string) bool {
	u := strings.ToUpper(name)
	for _, s := range secretNames {
		if strings.Contains(u, s) {
			return true
		}
	}
	return false
}

// SecretValues returns the values of the secret-looking variables in an
// environment given as KEY=VALUE pairs.
func SecretValues(env []string) []string {
	var out []string
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if ok && IsSecretName(k) && v != "" {
			out = append(out, v)
		}
	}
	return out
}
