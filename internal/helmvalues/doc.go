// Package helmvalues handles chart values as Helm does: values.schema.json
// compiled offline, one error per values path, the subschemas of a value,
// deep copies.
//
// It handles Helm chart values the way Helm does, for the validators that
// check them (template validate, upgrade check): a chart's
// values.schema.json compiled as Helm compiles it, but offline; its
// violations by a values tree flattened to one error per values path; the
// subschemas that apply to one value; and deep copies of values trees.
package helmvalues
