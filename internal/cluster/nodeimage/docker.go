package nodeimage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/k0rdent/kbook/internal/gobuild"
)

// docker runs the docker command line, as kind's own code does: the
// engine is whatever the docker client talks to (DOCKER_HOST, its
// context).
type docker struct{ bin string }

func newDocker() (docker, error) {
	bin, err := exec.LookPath("docker")
	if err != nil {
		return docker{}, fmt.Errorf("no docker command on PATH: building a kind node image needs a Docker engine")
	}
	return docker{bin: bin}, nil
}

// run runs docker with args (stdin may be nil) and returns its standard
// output; a failure carries the end of its standard error.
func (d docker) run(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, d.bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", context.Cause(ctx)
		}
		msg := strings.TrimSpace(gobuild.Tail(errb.String()+out.String(), 2000))
		return "", fmt.Errorf("docker %s: %w: %s", strings.Join(short(args), " "), err, msg)
	}
	return strings.TrimSpace(out.String()), nil
}

// short keeps an error's command line readable: long arguments (scripts)
// are cut.
func short(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 60 {
			a = a[:57] + "..."
		}
		out[i] = a
	}
	return out
}

// ErrNoEngine means the docker client answered but no engine did.
var ErrNoEngine = errors.New("no Docker engine is running")

// ping checks that an engine answers.
func (d docker) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := d.run(ctx, nil, "version", "--format", "{{.Server.Version}}"); err != nil {
		return fmt.Errorf("%w (%v): start one (e.g. sudo systemctl start docker; on a machine without systemd see content/clusters/kind.md)", ErrNoEngine, err)
	}
	return nil
}

// imageID returns the ID of image ref in the engine, "" if it has none.
func (d docker) imageID(ctx context.Context, ref string) (string, error) {
	out, err := d.run(ctx, nil, "image", "inspect", "--format", "{{.Id}}", ref)
	if err != nil {
		if strings.Contains(err.Error(), "No such image") || strings.Contains(err.Error(), "No such object") {
			return "", nil
		}
		return "", err
	}
	return out, nil
}

// imageLabel returns the value of the label name of the image ref ("" when
// it has none, or the engine has no such image).
func (d docker) imageLabel(ctx context.Context, ref, name string) (string, error) {
	out, err := d.run(ctx, nil, "image", "inspect", "--format", `{{index .Config.Labels "`+name+`"}}`, ref)
	if err != nil {
		if strings.Contains(err.Error(), "No such image") || strings.Contains(err.Error(), "No such object") {
			return "", nil
		}
		return "", err
	}
	if out == "<no value>" {
		return "", nil
	}
	return out, nil
}

// pruneImages removes the images of repo but keep and the newest spare
// others (another kbook on the machine, or a branch, may use them): what
// earlier builds left in the engine (assemble removes the one keep
// replaces). An image a container uses is left alone (docker image rm
// refuses it). It returns what it removed.
func (d docker) pruneImages(ctx context.Context, repo, keep string, spare int) []string {
	var gone []string
	out, err := d.run(ctx, nil, "image", "ls", repo, "--format", "{{.Repository}}:{{.Tag}}")
	if err != nil {
		return gone
	}
	type tagged struct{ ref, created string }
	var others []tagged
	for _, ref := range strings.Fields(out) {
		if ref == keep || strings.HasSuffix(ref, ":<none>") {
			continue
		}
		created, err := d.run(ctx, nil, "image", "inspect", "--format", "{{.Created}}", ref)
		if err != nil {
			continue
		}
		others = append(others, tagged{ref, created})
	}
	// Newest first: RFC 3339 times in UTC, as the engine writes them, sort
	// as strings.
	sort.Slice(others, func(i, j int) bool { return others[i].created > others[j].created })
	for i, o := range others {
		if i < spare {
			continue
		}
		if _, err := d.run(ctx, nil, "image", "rm", o.ref); err == nil {
			gone = append(gone, o.ref)
		}
	}
	return gone
}
