// Package outmatch compares what a shell block printed with the expected
// output a docs page shows after it, the way a reader compares them:
// exact, shape (kubectl-style tables by header and row keys, timestamps
// and generated name suffixes wildcarded, a "..." line for any lines) or
// illustrative (never compared).
//
// It knows nothing of runbooks or runners: it takes two strings and a
// mode, and says where they part.
package outmatch
