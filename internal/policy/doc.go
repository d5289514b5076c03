// Package policy implements organisation policies for templates: CEL rules
// over rendered objects, chart metadata and values.
//
// A policy file (kind TemplatePolicy) holds rules whose CEL expressions must
// evaluate to true for a template to comply: object rules run against every
// rendered object they match, chart rules once against the chart's metadata.
// Both see the Helm values the chart was rendered with. Load compiles every
// expression up front, so a policy that loads cannot fail to compile later;
// evaluation problems (a missing field, a cost or time limit) are reported as
// violations of the rule, never as a crash.
//
// A loaded Policy is read-only: CheckObject and CheckChart may be called from
// several goroutines at once.
package policy
