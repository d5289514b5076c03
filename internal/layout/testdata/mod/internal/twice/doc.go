// Package twice has one doc comment here.
package twice
