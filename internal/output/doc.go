// Package output writes a command's result in the format its -o flag
// names: json and yaml the whole value, the same fields in both (yaml by
// the JSON field names), text by the command's own writer.
//
// It is the one writer of the commands that print a result rather than
// findings (findings.Write writes those): provider conformance, status,
// upgrade apply and upgrade window; Formats is what their -o takes.
// ManifestsAs is the output of the commands that print Kubernetes objects
// (template and provider manifest), yaml or json.
//
// It also decides, in one place, whether human text is coloured: Color
// is true only for a terminal, with $NO_COLOR unset or empty and no
// --no-color (NoColor); Colors is the palette the text writers (findings'
// text, a run's summary) colour words with.
package output
