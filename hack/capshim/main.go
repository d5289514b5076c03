// Command capshim is runc with the capabilities this machine cannot grant
// taken out of each container's spec (package capshim): registered as
// dockerd's default runtime by hack/engine where the bounding set lacks a
// capability that privileged containers request, so that kind nodes can
// start. The real runc is $KBOOK_RUNC, else runc on PATH.
//
// capshim --missing prints the capabilities the bounding set lacks, one
// a line (nothing where it lacks none): hack/engine asks it whether the
// shim is needed at all.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/k0rdent/kbook/internal/engine/capshim"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--missing" {
		missing, err := capshim.MissingHere()
		if err != nil {
			fmt.Fprintln(os.Stderr, "capshim:", err)
			os.Exit(1)
		}
		for _, c := range missing {
			fmt.Println(c)
		}
		return
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "capshim:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	runc := os.Getenv("KBOOK_RUNC")
	if runc == "" {
		p, err := exec.LookPath("runc")
		if err != nil {
			return err
		}
		runc = p
	}
	wd, _ := os.Getwd()
	if f := capshim.SpecFile(args, wd); f != "" {
		drop, err := capshim.MissingHere()
		if err != nil {
			return err
		}
		if err := rewrite(f, drop); err != nil {
			return err
		}
	}
	return syscall.Exec(runc, append([]string{runc}, args...), os.Environ())
}

func rewrite(file string, drop []string) error {
	doc, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	out, removed, err := capshim.Strip(doc, drop)
	if err != nil || len(removed) == 0 {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".capshim-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if fi, err := os.Stat(file); err == nil {
		_ = os.Chmod(tmp.Name(), fi.Mode())
	}
	return os.Rename(tmp.Name(), file)
}
