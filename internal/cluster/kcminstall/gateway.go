package kcminstall

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
)

// KindGateway returns this host's IPv4 address on kind's network (the
// network's gateway), where a kind cluster's pods reach this host: kind's
// network is "kind" unless KIND_EXPERIMENTAL_DOCKER_NETWORK names another.
// engine is the container engine's CLI (docker or podman).
func KindGateway(ctx context.Context, engine string) (string, error) {
	network := "kind"
	if n := os.Getenv("KIND_EXPERIMENTAL_DOCKER_NETWORK"); n != "" {
		network = n
	}
	out, err := exec.CommandContext(ctx, engine, "network", "inspect", network, "--format", "{{range .IPAM.Config}}{{.Gateway}} {{end}}").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s network inspect %s: %v: %s", engine, network, err, strings.TrimSpace(string(out)))
	}
	for _, f := range strings.Fields(string(out)) {
		if ip := net.ParseIP(f); ip != nil && ip.To4() != nil {
			return ip.String(), nil
		}
	}
	return "", fmt.Errorf("%s network %s has no IPv4 gateway (%q)", engine, network, strings.TrimSpace(string(out)))
}
