// Package twice has another here.
package twice
