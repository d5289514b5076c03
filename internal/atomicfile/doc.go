// Package atomicfile writes files atomically: readers see the old content or
// the new, never half of it.
package atomicfile
