package main

import (
	"os"

	"github.com/k0rdent/kbook/internal/clidocs"
	"github.com/spf13/cobra"
)

// newGenDocsCmd writes the CLI reference pages of the docs site, so they
// are generated from the commands and cannot drift from them.
func newGenDocsCmd() *cobra.Command {
	var rules, providerRules, upgradeRules string
	cmd := &cobra.Command{
		Use:    "gen-docs DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := clidocs.Commands(cmd.Root(), args[0]); err != nil {
				return err
			}
			if rules != "" {
				if err := os.WriteFile(rules, clidocs.TemplateRules(), 0o644); err != nil {
					return err
				}
			}
			if providerRules != "" {
				if err := os.WriteFile(providerRules, clidocs.ProviderRules(), 0o644); err != nil {
					return err
				}
			}
			if upgradeRules != "" {
				return os.WriteFile(upgradeRules, clidocs.UpgradeRules(), 0o644)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&rules, "rules", "", "also write the template rule catalogue to this `file`")
	cmd.Flags().StringVar(&providerRules, "provider-rules", "", "also write the provider rule catalogue to this `file`")
	cmd.Flags().StringVar(&upgradeRules, "upgrade-rules", "", "also write the chain and upgrade rule catalogue to this `file`")
	return cmd
}
