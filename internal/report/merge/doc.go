// Package merge is `kbook report merge`: the JSON reports of a run's
// shards merged into one, written as JSON or JUnit, and their summary.
package merge
