// Package schema validates objects offline against CRD schemas and CEL
// rules, with the API server's own code.
//
// It validates Kubernetes objects offline against the OpenAPI schemas and
// CEL rules of CustomResourceDefinitions, the way the API server would, so
// kbook can check rendered templates before they are installed.
//
// It does not implement a validator of its own: it runs the code of
// k8s.io/apiextensions-apiserver in the order the API server runs it when a
// custom resource is created:
//
//  1. decoding: the object is round-tripped through JSON, its metadata is
//     coerced, fields the structural schema does not know are pruned (and
//     reported, as strict field validation does), non-nullable nulls are
//     dropped and embedded ObjectMeta is coerced;
//  2. structural defaulting (so a missing field with a default is not
//     reported as required);
//  3. create preparation: generateName is expanded, a missing namespace of a
//     namespaced kind is assumed (the real one is only known at install time),
//     the namespace of a cluster-scoped kind is cleared and status is dropped
//     when the status subresource is enabled;
//  4. validation: metadata, the OpenAPI schema (types, required, enum,
//     pattern, formats, bounds, nullable...), scale subresource paths,
//     embedded resources, list-type map/set invariants and the
//     x-kubernetes-validations CEL rules with the server's per-call and
//     runtime cost limits. Transition rules (those that use oldSelf) are
//     skipped, as on create. When a blocking schema error exists (wrong type,
//     required, enum, too long, too many), the CEL rules are not run and a
//     single error says so, as the server does.
//
// CustomResourceDefinitions read from files are first checked with the API
// server's own functions for what it would reject and what validation needs:
// names, a schema for every version, structural schemas, valid defaults. An
// error names the file and document. The rest of the server's CRD validation
// (printer columns, conversion webhooks, the static cost estimate of CEL
// rules...) is not run: it would link the API server's webhook and tracing
// clients. A CEL rule that does not compile is reported by Validate, at the
// rule's path, as the server reports it.
//
// Unknown fields are reported as errors of type field.ErrorTypeForbidden at
// the unknown field's path with the detail `unknown field "spec.foo"`, the
// words kubectl prints for the server's strict field validation.
package schema
