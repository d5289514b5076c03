package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/k0rdent/kbook/examples/providers/inventory/inventory"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "list" {
		os.Exit(list(os.Args[2:]))
	}
	os.Exit(serve(os.Args[1:]))
}

func token(file string) (string, error) {
	if file != "" {
		data, err := os.ReadFile(file)
		return strings.TrimSpace(string(data)), err
	}
	if t := os.Getenv("INVENTORY_TOKEN"); t != "" {
		return t, nil
	}
	return "", fmt.Errorf("no token: give --token-file or set INVENTORY_TOKEN")
}

// writeAtomic writes data to a temporary file beside path, then renames
// it over path: a reader waiting for the file (list --url-file, a runbook
// step) sees all of it or nothing, never the empty file os.WriteFile
// creates before it writes.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// readURLFile reads the URL of an --addr-file: an error until the file
// holds a whole line (a server of an older build may not have finished
// writing it).
func readURLFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if !strings.HasSuffix(string(data), "\n") || strings.TrimSpace(string(data)) == "" {
		return "", fmt.Errorf("%s: no URL yet", path)
	}
	return strings.TrimSpace(string(data)), nil
}

func serve(args []string) int {
	fs := flag.NewFlagSet("inventory-server", flag.ExitOnError)
	listen := fs.String("listen", "127.0.0.1:8080", "address to listen on (port 0: any free port)")
	addrFile := fs.String("addr-file", "", "write the URL the server listens on to this file")
	tokenFile := fs.String("token-file", "", "file holding the API token")
	n := fs.Int("machines", 3, "machines in the pool")
	zones := fs.String("zones", "zone-a,zone-b", "comma-separated zones")
	identityOut := fs.String("identity-out", "", "write an InventoryIdentity manifest pointing at the server to this file (written before --addr-file)")
	identityName := fs.String("identity-name", "inventory", "name of the InventoryIdentity --identity-out writes")
	secretName := fs.String("secret-name", "inventory-token", "Secret (key token) the identity references")
	_ = fs.Parse(args)
	tok, err := token(*tokenFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "inventory-server:", err)
		return 2
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "inventory-server:", err)
		return 1
	}
	url := "http://" + ln.Addr().String()
	if *identityOut != "" {
		id := fmt.Sprintf("apiVersion: infrastructure.inventory.example/v1alpha1\nkind: InventoryIdentity\nmetadata:\n  name: %s\nspec:\n  url: %s\n  secretRef:\n    name: %s\n", *identityName, url, *secretName)
		if err := writeAtomic(*identityOut, []byte(id)); err != nil {
			fmt.Fprintln(os.Stderr, "inventory-server:", err)
			return 1
		}
	}
	if *addrFile != "" {
		if err := writeAtomic(*addrFile, []byte(url+"\n")); err != nil {
			fmt.Fprintln(os.Stderr, "inventory-server:", err)
			return 1
		}
	}
	srv := &http.Server{Handler: inventory.NewServer(tok, inventory.Pool(*n, strings.Split(*zones, ","))), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	fmt.Fprintf(os.Stderr, "inventory-server: %d machines on %s\n", *n, url)
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		fmt.Fprintln(os.Stderr, "inventory-server:", err)
		return 1
	}
	return 0
}

func list(args []string) int {
	fs := flag.NewFlagSet("list", flag.ExitOnError)
	url := fs.String("url", "", "inventory API URL")
	urlFile := fs.String("url-file", "", "file holding the URL (an --addr-file)")
	tokenFile := fs.String("token-file", "", "file holding the API token")
	wait := fs.Duration("wait", 0, "wait up to this long for --url-file to appear and the server to answer")
	_ = fs.Parse(args)
	deadline := time.Now().Add(*wait)
	if *urlFile != "" {
		u, err := readURLFile(*urlFile)
		for err != nil && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			u, err = readURLFile(*urlFile)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "list:", err)
			return 2
		}
		*url = u
	}
	if *url == "" {
		fmt.Fprintln(os.Stderr, "list: give --url or --url-file")
		return 2
	}
	for time.Now().Before(deadline) {
		if resp, err := http.Get(*url + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	tok, err := token(*tokenFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "list:", err)
		return 2
	}
	ms, err := inventory.NewClient(*url, tok).Machines(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, "list:", err)
		return 1
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tZONE\tADDRESS\tOWNER")
	for _, m := range ms {
		owner := m.Owner
		if owner == "" {
			owner = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", m.ID, m.Zone, m.Address, owner)
	}
	_ = w.Flush()
	return 0
}
