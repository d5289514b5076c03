// Package mask masks secrets in captured output before it is cached,
// reported or published.
//
// A Masker is a list of named sanitisers applied in order; each is one small
// value, so callers can add their own (kbook adds the values of secret-like
// environment variables of every runbook).
package mask
