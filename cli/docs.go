package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/fedlab/fedlab/luaapi"
	"github.com/fedlab/fedlab/registry"
)

// kindTitles are the section titles of docs/components.md.
var kindTitles = map[registry.Kind]string{
	registry.Algorithm: "Algorithms", registry.Loss: "Losses", registry.Regularizer: "Regularizers and constraints",
	registry.Mirror: "Mirror maps", registry.Dataset: "Datasets", registry.Metric: "Metrics", registry.Schedule: "Schedules",
	registry.Topology: "Topologies", registry.Optimizer: "Server optimizers", registry.Availability: "Client availability",
	registry.Compressor: "Compressors", registry.Privacy: "Client-level differential privacy",
}

// docsCmd is `fedlab docs`: prints docs/components.md.
func docsCmd(args []string, stdout, _ io.Writer) error {
	if err := noArguments(newFlagSet("docs"), args); err != nil {
		return err
	}
	_, err := io.WriteString(stdout, componentsMarkdown())
	return err
}

// componentsMarkdown renders the reference of every registered component,
// kinds in registry order and names sorted (docs/components.md).
func componentsMarkdown() string {
	var b strings.Builder
	b.WriteString("# Components\n\n")
	b.WriteString("<!-- Generated from the registry by `go run ./cmd/fedlab docs > docs/components.md`; do not edit. -->\n\n")
	b.WriteString("Every component is available in Lua as `fedlab.<namespace>.<name>{ key = value, ... }` " +
		"(see [lua-api.md](lua-api.md)), and in `fedlab list` and `fedlab describe NAME`. " +
		"A parameter whose default is *required* must be given. A *schedule* parameter takes a number, " +
		"a `fedlab.schedule.*` value or a Lua function of the round. " +
		"A *path* parameter is a string naming a file, directory or glob the component reads; " +
		"written relative in a script, it resolves against the script's directory (see [lua-api.md](lua-api.md)). " +
		"In a Go plan, a component with parameters is written `plan.Of(func(p *pkg.TypeParams) { p.Field = ... })` " +
		"with the params type and the fields named below (see [library.md](library.md#typed-go-plans)).\n")
	for _, k := range registry.Kinds {
		specs := registry.Specs(k)
		if len(specs) == 0 {
			continue
		}
		title := kindTitles[k]
		if title == "" {
			title = string(k)
		}
		fmt.Fprintf(&b, "\n## %s (`fedlab.%s.*`)\n", title, luaapi.Namespace(k))
		for _, s := range specs {
			fmt.Fprintf(&b, "\n### `fedlab.%s.%s`\n\n%s\n\n", luaapi.Namespace(k), s.Name, cell(s.Doc))
			if t := registry.ParamsType(k, s.Name); t != nil {
				fmt.Fprintf(&b, "Go: `%s`\n\n", t)
			}
			if len(s.Params) == 0 {
				b.WriteString("No parameters.\n")
				continue
			}
			b.WriteString("| parameter | Go field | type | default | range | description |\n|---|---|---|---|---|---|\n")
			for _, p := range s.Params {
				field := registry.GoField(k, s.Name, p.Name)
				if field != "" {
					field = "`" + field + "`"
				}
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", p.Name, field, p.TypeText(), cell(p.DefaultText()), cell(p.RangeText()), cell(p.Doc))
			}
		}
	}
	return b.String()
}

// cell escapes text for a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
