package site

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/bep/logg"
	"github.com/gohugoio/hugo/common/herrors"
	"github.com/gohugoio/hugo/common/loggers"
	"github.com/gohugoio/hugo/config"
	"github.com/gohugoio/hugo/config/allconfig"
	"github.com/gohugoio/hugo/deps"
	"github.com/gohugoio/hugo/hugofs"
	"github.com/gohugoio/hugo/hugolib"
	"github.com/spf13/afero"
)

// HugoVersion is the Hugo release kbook builds sites with (go.mod pins it).
const HugoVersion = "v0.165.0"

// runHugo builds the Hugo project in dir into publishDir, in-process.
// Warnings are returned; an error names the source file and line where
// Hugo reports one.
func runHugo(g *generated, publishDir string) (warnings []string, err error) {
	var logBuf bytes.Buffer
	logger := loggers.New(loggers.Options{
		Level:         logg.LevelWarn,
		StdOut:        &logBuf,
		StdErr:        &logBuf,
		DistinctLevel: logg.LevelWarn,
		StoreErrors:   true,
	})
	flags := config.New()
	flags.Set("workingDir", g.dir)
	flags.Set("publishDir", publishDir)
	flags.Set("cacheDir", g.dir+"/.cache")
	flags.Set("quiet", true)
	afs := afero.NewOsFs()
	res, err := allconfig.LoadConfig(allconfig.ConfigSourceDescriptor{
		Flags:    flags,
		Fs:       afs,
		Filename: g.dir + "/hugo.json",
		Logger:   logger,
		Environ:  []string{"HUGO_ENVIRONMENT=production"},
	})
	if err != nil {
		return nil, g.hugoError(err)
	}
	fs := hugofs.NewFrom(afs, res.LoadingInfo.BaseConfig)
	h, err := hugolib.NewHugoSites(deps.DepsCfg{Configs: res, Fs: fs, LogLevel: logger.Level(), StdOut: &logBuf, StdErr: &logBuf})
	if err != nil {
		return nil, g.hugoError(err)
	}
	defer h.Close()
	if err := h.Build(hugolib.BuildCfg{}); err != nil {
		return nil, g.hugoError(err)
	}
	if errs := logger.Errors(); errs != "" {
		return nil, g.hugoError(errors.New(errs))
	}
	for _, l := range strings.Split(strings.TrimSpace(logBuf.String()), "\n") {
		if strings.TrimSpace(l) != "" {
			warnings = append(warnings, g.mapPaths(l))
		}
	}
	return warnings, nil
}

var hugoPos = regexp.MustCompile(`"?(/[^":\s]+\.(?:md|html|json|toml|yaml))"?:(\d+)(?::(\d+))?`)

// hugoError turns a Hugo error into an *Error at the user's source: the
// innermost file position Hugo recorded, mapped from the generated or
// mounted file to the docs-relative source, with the innermost cause.
func (g *generated) hugoError(err error) error {
	fes := herrors.UnwrapFileErrors(err)
	for i := len(fes) - 1; i >= 0; i-- {
		pos := fes[i].Position()
		if pos.Filename == "" || pos.LineNumber <= 0 {
			continue
		}
		file, line := g.source(pos.Filename, pos.LineNumber)
		msg := g.mapPaths(herrors.Cause(err).Error())
		return &Error{File: file, Line: line, Msg: msg}
	}
	msg := g.mapPaths(err.Error())
	if m := hugoPos.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[2])
		return &Error{File: m[1], Line: line, Msg: strings.TrimLeft(strings.Replace(msg, m[0], "", 1), ": ")}
	}
	return fmt.Errorf("hugo: %s", msg)
}

// source maps a file Hugo read and a line in it to the docs-relative
// source and its line.
func (g *generated) source(file string, line int) (string, int) {
	if ref, ok := g.pages[file]; ok {
		return ref.file, ref.line(line)
	}
	for _, r := range g.roots {
		if rel, found := strings.CutPrefix(file, r); found {
			return filepath.ToSlash(rel), line
		}
	}
	if rel, found := strings.CutPrefix(file, g.dir+"/themes/kbook/"); found {
		return "theme " + rel, line
	}
	return file, line
}

// mapPaths rewrites generated file paths with line numbers in s to the
// sources they were made from.
func (g *generated) mapPaths(s string) string {
	return hugoPos.ReplaceAllStringFunc(s, func(m string) string {
		sm := hugoPos.FindStringSubmatch(m)
		line, _ := strconv.Atoi(sm[2])
		file, line := g.source(sm[1], line)
		return fmt.Sprintf("%s:%d", file, line)
	})
}
