package scaffold

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/k0rdent/kbook/internal/skeleton"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

//go:embed all:skeleton
var skeletonFS embed.FS

// Options describe the repository to make.
type Options struct {
	// Dir is the folder to make it in.
	Dir string
	// Title is the site title (default: the directory name).
	Title string
	// KbookVersion is the kbook release the workflow installs, with
	// kbook's GitHub Action at the same tag (default, and for a version
	// that is not a release: latest, with the action at main).
	KbookVersion string
}

// ActionRef is the ref of kbook's GitHub Action the workflow uses: the
// release tag, or main for latest.
func (o Options) ActionRef() string {
	if o.KbookVersion == "latest" {
		return "main"
	}
	return o.KbookVersion
}

// isRelease reports whether v names a kbook release: a semantic version
// that is not a Go pseudo-version (a go install of a commit) nor has build
// metadata (devel+3f2a1c9e, a release's -dirty rebuild).
func isRelease(v string) bool {
	return semver.IsValid(v) && semver.Build(v) == "" && !module.IsPseudoVersion(v)
}

// Files returns the files of a new docs repository, by relative path.
func Files(o Options) (map[string][]byte, error) {
	if !isRelease(o.KbookVersion) {
		o.KbookVersion = "latest"
	}
	out := map[string][]byte{}
	err := fs.WalkDir(skeletonFS, "skeleton", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := fs.ReadFile(skeletonFS, p)
		if err != nil {
			return err
		}
		t, err := template.New(p).Parse(string(src))
		if err != nil {
			return fmt.Errorf("skeleton %s: %w", p, err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, o); err != nil {
			return fmt.Errorf("skeleton %s: %w", p, err)
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, "skeleton/"), ".tmpl")
		out[rel] = b.Bytes()
		return nil
	})
	return out, err
}

// Write makes the repository in o.Dir. It writes nothing when any of its
// files already exists, and says which.
func Write(o Options) ([]string, error) {
	dir := o.Dir
	if o.Title == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		o.Title = filepath.Base(abs)
	}
	files, err := Files(o)
	if err != nil {
		return nil, err
	}
	if err := skeleton.WriteInto(dir, files); err != nil {
		var ee *skeleton.ExistError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("%s already exists: kbook init docs writes nothing over existing files", strings.Join(ee.Paths, ", "))
		}
		return nil, err
	}
	return skeleton.Names(files), nil
}

// New is kbook init: it writes the repository into o.Dir as Write does, with the kbook version the
// workflow installs (a development build's: latest), and says what it
// created and what to run next.
func New(ctx context.Context, o Options) (skeleton.Created, error) {
	if err := ctx.Err(); err != nil {
		return skeleton.Created{}, err
	}
	names, err := Write(o)
	if err != nil {
		return skeleton.Created{}, err
	}
	return skeleton.Created{Dir: o.Dir, Files: names, Into: true,
		Next: "cd " + o.Dir + " && kbook serve   (then kbook build to write public/)"}, nil
}
