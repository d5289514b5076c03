package clidocs

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"text/template"

	"github.com/k0rdent/kbook/internal/check"
	"github.com/k0rdent/kbook/internal/cluster/local/binaries"
	"github.com/k0rdent/kbook/internal/cluster/local/download"
	"github.com/k0rdent/kbook/internal/findings"
	providerscaffold "github.com/k0rdent/kbook/internal/provider/scaffold"
	"github.com/k0rdent/kbook/internal/site"
	"github.com/k0rdent/kbook/internal/status"
	templatescaffold "github.com/k0rdent/kbook/internal/template/scaffold"
	"github.com/k0rdent/kbook/internal/upgrade"
	"github.com/spf13/cobra"
)

// help holds the words of every command: help/<command path, spaces as
// underscores>.md is "# SHORT", a blank line, the LONG text, and after a
// line "## Examples" and a blank line the EXAMPLE, verbatim. The texts
// are Go templates whose values (versions, annotations, rule lists) come
// from the packages that own them (helpValues).
//
//go:embed help/*.md
var help embed.FS

// examples is the line that starts a help file's examples.
const examples = "## Examples\n\n"

// helpValues are the values the help texts name, from their packages.
func helpValues() map[string]string {
	var providers []string
	for _, p := range templatescaffold.Providers {
		providers = append(providers, fmt.Sprintf("  %-10s %s", p.Name, p.Description))
	}
	return map[string]string{
		"HugoVersion":               site.HugoVersion,
		"LintRules":                 strings.TrimSuffix(findings.RuleList(check.Registry), "\n"),
		"KubernetesVersion":         binaries.KubernetesVersion,
		"EtcdVersion":               binaries.EtcdVersion,
		"EnvIndexURL":               download.EnvIndexURL,
		"ControllerToolsVersion":    providerscaffold.ControllerToolsVersion,
		"ControllerRuntimeVersion":  providerscaffold.ControllerRuntimeVersion,
		"ProviderKubernetesVersion": providerscaffold.KubernetesVersion,
		"TemplateProviders":         strings.Join(providers, "\n"),
		"PinAnnotation":             upgrade.PinAnnotation,
		"WindowAnnotation":          upgrade.WindowAnnotation,
		"ExclusionsAnnotation":      upgrade.ExclusionsAnnotation,
		"UpgradeFromAnnotation":     status.UpgradeFromAnnotation,
	}
}

// Describe sets the Short, Long and Example of root and every command
// below it from its help file, so that --help and the CLI reference pages
// (Commands) say the same. Cobra's own help and completion commands keep
// their words. A command without a help file, a help file no command
// reads, and one that does not parse or render are errors, all of them
// joined; the commands Describe could describe are described anyway.
func Describe(root *cobra.Command) error {
	return describe(root, help, "help", helpValues())
}

func describe(root *cobra.Command, fsys fs.FS, dir string, values map[string]string) error {
	files, err := fs.Glob(fsys, path.Join(dir, "*.md"))
	if err != nil {
		return err
	}
	unread := map[string]bool{}
	for _, f := range files {
		unread[f] = true
	}
	var errs []error
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Parent() == root && (c.Name() == "help" || c.Name() == "completion") {
			return
		}
		file := path.Join(dir, strings.ReplaceAll(c.CommandPath(), " ", "_")+".md")
		delete(unread, file)
		if err := describeOne(c, fsys, file, values); err != nil {
			errs = append(errs, err)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, f := range files {
		if unread[f] {
			errs = append(errs, fmt.Errorf("%s: no command %q", f, strings.ReplaceAll(strings.TrimSuffix(path.Base(f), ".md"), "_", " ")))
		}
	}
	return errors.Join(errs...)
}

// describeOne sets c's words from file.
func describeOne(c *cobra.Command, fsys fs.FS, file string, values map[string]string) error {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return fmt.Errorf("command %q has no help text: %w", c.CommandPath(), err)
	}
	t, err := template.New(file).Option("missingkey=error").Parse(string(data))
	if err != nil {
		return err
	}
	var b strings.Builder
	if err := t.Execute(&b, values); err != nil {
		return err
	}
	short, long, example, err := parseHelp(b.String())
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	c.Short, c.Long, c.Example = short, long, example
	return nil
}

// parseHelp splits a help file into its short line, long text and
// examples.
func parseHelp(text string) (short, long, example string, err error) {
	head, rest, _ := strings.Cut(text, "\n")
	short, ok := strings.CutPrefix(head, "# ")
	if !ok || strings.TrimSpace(short) == "" {
		return "", "", "", errors.New(`line 1: want "# " and the command's one-line description`)
	}
	if rest != "" && !strings.HasPrefix(rest, "\n") {
		return "", "", "", errors.New("line 2: want a blank line after the description")
	}
	rest = strings.TrimPrefix(rest, "\n")
	if ex, ok := strings.CutPrefix(rest, examples); ok {
		return short, "", strings.TrimSuffix(ex, "\n"), nil
	}
	long, example, _ = strings.Cut(rest, "\n\n"+examples)
	return short, strings.TrimSuffix(long, "\n"), strings.TrimSuffix(example, "\n"), nil
}
