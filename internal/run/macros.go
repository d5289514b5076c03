package run

import (
	"maps"
	"path/filepath"

	"github.com/k0rdent/kbook/internal/mkdocs"
	"github.com/k0rdent/kbook/internal/mkdocs/macros"
	"github.com/k0rdent/kbook/internal/runbook"
)

// PageMacros renders the macros of the pages of the MkDocs project at
// root that run their shell blocks, line by line (macros.Lines), as its
// built site shows them: mkdocs.yml's extra, then vars (kbook.yaml's
// variables), then the page's front matter, with the plugin's delimiters.
// nil when root is no MkDocs project or it does not use the macros
// plugin. A mkdocs.yml that does not load is bad input at its line.
func PageMacros(root string, vars map[string]any) (runbook.Macros, error) {
	if root == "" || mkdocs.Find(root) == "" {
		return nil, nil
	}
	mk, err := mkdocs.Load(root)
	if err != nil {
		return nil, err
	}
	cfg, on := mk.Plugins["macros"]
	if !on {
		return nil, nil
	}
	plugin := macros.ReadPlugin(cfg)
	// {% include %} reads from include_dir, then docs_dir.
	if d, ok := cfg["include_dir"].(string); ok && d != "" {
		plugin.IncludeDirs = append(plugin.IncludeDirs, filepath.Join(root, filepath.FromSlash(d)))
	}
	plugin.IncludeDirs = append(plugin.IncludeDirs, filepath.Join(root, filepath.FromSlash(mk.DocsDir)))
	extra := map[string]any{}
	maps.Copy(extra, mk.Extra)
	maps.Copy(extra, vars)
	all := map[string]any{}
	maps.Copy(all, extra)
	all["extra"] = extra
	if _, set := all["config"]; !set {
		all["config"] = mk.Raw
	}
	return func(file string, src []byte) ([]string, error) {
		return macros.Lines(file, src, plugin, all)
	}, nil
}
