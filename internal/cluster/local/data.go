package local

import (
	"errors"
	"fmt"

	"github.com/k0rdent/kbook/internal/log"
)

// Option configures Start.
type Option func(*Server)

// WithData has fill put etcd's data into its (empty) data directory before
// etcd starts: a server that starts from the state another one saved
// (StopSaving) serves that state's objects, CRDs included, at once.
func WithData(fill func(dataDir string) error) Option {
	return func(s *Server) { s.seed = fill }
}

// WithLogger has Start report its phases (etcd, kube-apiserver, the admin
// user) with their durations to l.
func WithLogger(l log.Logger) Option {
	return func(s *Server) { s.log = l }
}

// StopSaving stops kube-apiserver, then etcd (which writes its data out as
// it stops), hands etcd's data directory to save, and removes the server's
// directories whatever save returns: the consistent on-disk state a later
// Start WithData can begin from.
func (s *Server) StopSaving(save func(dataDir string) error) error {
	if s.cp == nil {
		return errors.New("stop local API server: not started")
	}
	dataDir := s.cp.Etcd.DataDir
	s.endAPIStart(false)
	var errs []error
	if err := s.cp.Stop(); err != nil {
		errs = append(errs, fmt.Errorf("stop local API server: %w", err))
	} else if err := save(dataDir); err != nil {
		errs = append(errs, err)
	}
	s.cp = nil
	errs = append(errs, s.removeDirs())
	return errors.Join(errs...)
}
