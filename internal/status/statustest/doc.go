// Package statustest writes fixture objects and their status into a real API
// server for tests of kbook status and kbook upgrade.
//
// It writes fixture objects and their status into a real API server for
// tests of kbook status and kbook upgrade: objects from a multi-document
// YAML file, then status from a YAML map of Kind/name to the status to write
// through the status subresource, as the controllers would.
package statustest
