// Command fedlab runs federated optimization experiments written as Lua
// scripts and documents the registered components: package cli's command
// line with every component of fedlab registered (fedlab --help lists the
// commands).
package main

import (
	"github.com/fedlab/fedlab/cli"
	_ "github.com/fedlab/fedlab/registry/all"
)

func main() { cli.Main() }
