// Command fedlab runs federated optimization experiments written as Lua
// scripts and documents the registered components: package cli's command
// line with every component of fedlab registered (fedlab --help lists the
// commands).
package main

import (
	_ "github.com/fedlab/fedlab/all"
	"github.com/fedlab/fedlab/cli"
)

func main() { cli.Main() }
