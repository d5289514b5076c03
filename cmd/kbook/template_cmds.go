package main

import "github.com/spf13/cobra"

// addTemplateCommands adds the template commands built on the validator.
func addTemplateCommands(cmd *cobra.Command) {}
