package plane

import (
	"errors"

	"github.com/k0rdent/kbook/internal/supervisor"
)

// Down is closed when the supervisor gives up restarting one of the
// plane's controllers (nil in API-only mode); why then says which, with
// its restarts and log (a *supervisor.DownError, the last lines of the log in its
// Tail), as the reason the runbooks using the plane fail.
func (p *Plane) Down() (down <-chan struct{}, why func() error) {
	if p.sup == nil {
		return nil, func() error { return nil }
	}
	return p.sup.Down(), func() error {
		var de *supervisor.DownError
		if err := p.sup.DownErr(); !errors.As(err, &de) {
			return err
		}
		return &planeDown{de}
	}
}

// planeDown is a DownError told as the plane's.
type planeDown struct{ *supervisor.DownError }

func (e *planeDown) Error() string {
	return "the k0rdent controller " + e.DownError.Error() + ": the k0rdent plane is broken, the runbooks using it fail; the next run starts a new plane"
}
func (e *planeDown) Unwrap() error { return e.DownError }
