package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/k0rdent/kbook/internal/cluster/assets"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/findings"
	"github.com/k0rdent/kbook/internal/log"
)

func main() {
	k0rdent := flag.String("k0rdent", "", "prepare this k0rdent `version`'s controllers instead of the API server's binaries")
	from := flag.String("assets-from", string(binaries.Auto), "download, build or auto (as kbook's --assets-from)")
	flag.Parse()
	src, err := binaries.ParseSource(*from)
	if err == nil && flag.NArg() != 0 {
		err = fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kbook-assets:", err)
		os.Exit(findings.ExitBadInput)
	}
	// The builds run under ctx (exec.CommandContext): a TERM or an INT
	// ends them, and the build lock is given back with the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir, err := assets.Prepare(ctx, *k0rdent, false, src, log.To{W: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "kbook-assets:", err)
		os.Exit(findings.ExitFor(err, ctx.Err() != nil))
	}
	fmt.Println(dir)
}
