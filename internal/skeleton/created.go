package skeleton

import (
	"fmt"
	"io"
	"path/filepath"
)

// Created is what a scaffold wrote, as the init commands report it: the
// directory, its files and the command to run next.
type Created struct {
	// Dir is the directory written; Files are relative to it.
	Dir   string
	Files []string
	// Next is the command line to run next ("": none).
	Next string
	// Into says the files were added to a directory that may hold others
	// (WriteInto): each is named with Dir, rather than listed under it.
	Into bool
}

// Write reports c to w: "created DIR/" and the files indented below it
// (with Into, "created DIR/FILE" each), then "next: NEXT".
func (c Created) Write(w io.Writer) error {
	var err error
	printf := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	if !c.Into {
		printf("created %s/\n", c.Dir)
	}
	for _, f := range c.Files {
		if c.Into {
			printf("created %s\n", filepath.Join(c.Dir, f))
		} else {
			printf("  %s\n", f)
		}
	}
	if c.Next != "" {
		printf("next: %s\n", c.Next)
	}
	return err
}
