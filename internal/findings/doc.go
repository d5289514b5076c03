// Package findings is the one findings vocabulary of every validator:
// severities, findings, rule registries, text/JSON/SARIF writers, exit
// codes.
//
// It is the one vocabulary every kbook validator reports in: template
// validate, provider validate, chain validate, upgrade check, and kbook
// check (runbook lint, the runner's checks, links). No other package has a
// finding type or an order of findings of its own, and none writes or
// counts findings but through this package: chain and upgrade put what they
// report besides findings in a Report's Detail.
//
// A validator defines its rules once, in a Registry (ID, category, title, a
// Markdown description that cites the k0rdent / Cluster API source the rule
// follows, and a default severity); the docs' rule catalogue is generated
// from it. Checking an input yields a Report: the input's name and its
// Findings, each with a rule ID, a Severity (error; warning; info for a
// note that is no problem of the input), a message, an optional fix Hint
// and a position (a File and Line, a values or field Path, the Object it
// is about, and the Config variant it was found with) and what kcm says
// about it (KCM). Finish applies --disable, drops repeats and sorts by
// file, line and rule, so every tool orders findings alike. A command that
// runs several validators joins their registries (Join); RuleList lists a
// registry in a command's help.
//
// A Report's Detail carries what a tool reports besides findings (chain
// validate's upgrade paths, upgrade check's rollouts): text output writes
// it around the finding lines with its own summary line, JSON adds its
// fields.
//
// The writers print reports unchanged for every tool:
//
//	WriteText   FILE:LINE: severity: [OBJECT: ]message [RULE], then a summary line
//	WriteJSON   {"<kind>": NAME, "errors": N, "warnings": N, "findings": [...]}
//	WriteSARIF  one SARIF 2.1.0 run, rules from the registry
//
// Write picks one by the -o value (json's fields as YAML for -o yaml);
// Formats lists them, CheckOutput and OneOf check and word any command's
// -o choices, and Output is the -o flag's value that refuses any other as
// the flag is parsed (and lists its choices for the shell's completion).
//
// # Exit codes
//
// Every validating command exits with ExitCode: 0 when no finding is an
// error (warnings and infos allowed), 1 when one is, 2 when an input could not be
// read as what it claims to be (a missing path, YAML that does not parse,
// a chart Helm cannot load, a bad flag), so that nothing could be checked.
// Libraries report the last case with an InputError (file and line
// included), or a finding of a rule registered with Input set; commands
// map both to ExitBadInput. The same table holds ExitInterrupted (130,
// Ctrl-C) and ExitBrokenPipe (141) for every kbook command.
//
// Path is a position inside a document (string keys and list indexes),
// printed as Finding.Path: workers[0].name, metadata.labels["a/b"].
// YAMLError turns a YAML parser error into the line it happened on (never
// past the end of the file) and a message without the parser's
// "yaml: line N:" prefix.
package findings
