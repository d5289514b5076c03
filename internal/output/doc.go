// Package output writes a command's result in the format its -o flag
// names: json and yaml the whole value, the same fields in both (yaml by
// the JSON field names), text by the command's own writer.
//
// It is the one writer of the commands that print a result rather than
// findings (findings.Write writes those): provider conformance, status,
// upgrade apply and upgrade window; Formats is what their -o takes.
package output
