// Command fedlab runs federated optimization experiments written as Lua
// scripts and documents the registered components.
//
//	fedlab run SCRIPT.lua [--out DIR] [--jobs N] [--workers N] [--fresh | --update] [--shard I/N] [--set K=V]... [--quiet] [--unsafe]
//	fedlab table DIR [--format text|md|latex|csv] [--call N] [--metric NAME]... [--bold] [--out FILE]
//	fedlab plot DIR [--metric NAME]... [--panels] [--x AXIS] [--call N] [--log | --linear] [--out DIR] [--format F]...
//	fedlab report DIR [--out FILE]
//	fedlab merge DIR... --out DIR
//	fedlab list [KIND]
//	fedlab describe NAME
//	fedlab docs
//	fedlab version
//	fedlab help
package main

import (
	"os"

	_ "github.com/fedlab/fedlab/all"
)

func main() {
	os.Exit(cli(os.Args[1:], os.Stdout, os.Stderr))
}
