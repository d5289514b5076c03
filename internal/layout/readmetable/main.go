package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/k0rdent/kbook/internal/atomicfile"
	"github.com/k0rdent/kbook/internal/layout"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	if err := write(root); err != nil {
		fmt.Fprintln(os.Stderr, "readmetable:", err)
		os.Exit(2)
	}
}

func write(root string) error {
	pkgs, err := layout.Packages(root)
	if err != nil {
		return err
	}
	readme := filepath.Join(root, "README.md")
	old, err := os.ReadFile(readme)
	if err != nil {
		return err
	}
	out, err := layout.Splice(old, layout.Table(pkgs))
	if err != nil {
		return fmt.Errorf("%s: %w", readme, err)
	}
	return atomicfile.Write(readme, out)
}
