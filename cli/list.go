package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/fedlab/fedlab/luaapi"
	"github.com/fedlab/fedlab/registry"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// parseKind accepts a kind ("regularizer"), its plural ("regularizers") or
// its Lua namespace ("reg").
func parseKind(s string) (registry.Kind, error) {
	for _, k := range registry.Kinds {
		if s == string(k) || s == string(k)+"s" || s == luaapi.Namespace(k) {
			return k, nil
		}
	}
	var names, accepted []string
	for _, k := range registry.Kinds {
		names = append(names, string(k))
		accepted = append(accepted, string(k), luaapi.Namespace(k))
	}
	return "", usageError{fmt.Sprintf("unknown kind %q%s; kinds: %s", s, registry.DidYouMean(s, accepted), strings.Join(names, ", "))}
}

// listCmd is `fedlab list [KIND]`.
func listCmd(args []string, stdout, _ io.Writer) error {
	kinds, err := parseArgs(newFlagSet("list"), args)
	if err != nil {
		return err
	}
	if len(kinds) > 1 {
		return usageError{"list takes at most one kind"}
	}
	return list(stdout, kinds)
}

// describeCmd is `fedlab describe NAME`.
func describeCmd(args []string, stdout, _ io.Writer) error {
	names, err := parseArgs(newFlagSet("describe"), args)
	if err != nil {
		return err
	}
	if len(names) != 1 {
		return usageError{"describe takes one component name"}
	}
	return describe(stdout, names[0])
}

// list prints the registered components of one kind, or of every kind, with
// their one-line docs.
func list(w io.Writer, args []string) error {
	kinds := registry.Kinds
	if len(args) == 1 {
		k, err := parseKind(args[0])
		if err != nil {
			return err
		}
		kinds = []registry.Kind{k}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, k := range kinds {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "%s (fedlab.%s.*)\n", k, luaapi.Namespace(k))
		specs := registry.Specs(k)
		if len(specs) == 0 {
			fmt.Fprintln(tw, "  (none registered)")
		}
		for _, s := range specs {
			fmt.Fprintf(tw, "  %s\t%s\n", s.Name, s.Doc)
		}
	}
	return tw.Flush()
}

// lookup finds the components called name, which may be qualified by a
// kind or Lua namespace: "l1", "reg.l1" or "fedlab.reg.l1".
func lookup(name string) ([]*registry.Spec, error) {
	name = strings.TrimPrefix(name, "fedlab.")
	if kind, short, ok := strings.Cut(name, "."); ok {
		k, err := parseKind(kind)
		if err != nil {
			return nil, err
		}
		if s, ok := registry.Lookup(k, short); ok {
			return []*registry.Spec{s}, nil
		}
		return nil, usageError{fmt.Sprintf("unknown %s %q%s; known: %s", k, short, registry.DidYouMean(short, registry.Names(k)), strings.Join(registry.Names(k), ", "))}
	}
	specs := registry.Find(name)
	if len(specs) == 0 {
		var all []string
		for _, k := range registry.Kinds {
			all = append(all, registry.Names(k)...)
		}
		return nil, usageError{fmt.Sprintf("unknown component %q%s; run `fedlab list` to see them all", name, registry.DidYouMean(name, all))}
	}
	return specs, nil
}

// describe prints the kind, doc, Lua constructor and parameter table of
// every component called name.
func describe(w io.Writer, name string) error {
	specs, err := lookup(name)
	if err != nil {
		return err
	}
	width := terminalWidth(w)
	for i, s := range specs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		lua := strings.ReplaceAll(wrap(constructorExample(s), width-5), "\n", "\n     ") // under "Lua: "
		fmt.Fprintf(w, "%s\nLua: %s\n", wrap(fmt.Sprintf("%s %s: %s", s.Kind, s.Name, s.Doc), width), lua)
		if len(s.Params) == 0 {
			fmt.Fprintln(w, "No parameters.")
			continue
		}
		header := []string{"parameter", "type", "default", "range", "description"}
		rows := make([][]string, len(s.Params))
		used := 3*len(header) + 1 // "│ " before each column, " │" after the last
		for j := range header[:4] {
			col := utf8.RuneCountInString(header[j])
			for i, p := range s.Params {
				if j == 0 {
					rows[i] = []string{p.Name, p.TypeText(), p.DefaultText(), p.RangeText(), p.Doc}
				}
				col = max(col, utf8.RuneCountInString(rows[i][j]))
			}
			used += col
		}
		if width-used < minDescription {
			paramList(w, rows, width)
			continue
		}
		t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithRowAutoWrap(tw.WrapNone),
			tablewriter.WithHeaderAlignment(tw.AlignLeft))
		t.Header(header)
		for _, row := range rows {
			row[4] = wrap(row[4], width-used) // the description fits the terminal's width
			if err := t.Append(row); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	return nil
}

// minDescription is the narrowest description column of describe's
// table; a narrower one reads badly, and the parameters are listed instead.
const minDescription = 40

// paramList prints the rows of describe's table (name, type, default,
// range, description) as a list for a terminal too narrow for the table:
// a line per parameter, its description below, indented and wrapped to
// width.
func paramList(w io.Writer, rows [][]string, width int) {
	fmt.Fprintln(w, "parameters:")
	for _, r := range rows {
		head := fmt.Sprintf("%s: %s, default %s", r[0], r[1], r[2])
		if r[2] == "required" {
			head = fmt.Sprintf("%s: %s, required", r[0], r[1])
		}
		if r[3] != "" {
			head += ", range " + r[3]
		}
		fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(wrap(head, max(minWidth, width-2)), "\n", "\n    "))
		fmt.Fprintf(w, "      %s\n", strings.ReplaceAll(wrap(r[4], max(minWidth, width-6)), "\n", "\n      "))
	}
}

// constructorExample shows the Lua call with the required parameters, e.g.
// `fedlab.reg.l1{ lambda = ... }`.
func constructorExample(s *registry.Spec) string {
	var req []string
	for _, p := range s.Params {
		if p.Required() {
			req = append(req, p.Name+" = ...")
		}
	}
	call := fmt.Sprintf("fedlab.%s.%s{", luaapi.Namespace(s.Kind), s.Name)
	if len(req) == 0 {
		return call + "}"
	}
	return call + " " + strings.Join(req, ", ") + " }"
}

// wrap breaks text into lines of at most width characters at spaces (a
// word longer than width stays whole on its line).
func wrap(text string, width int) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(text) {
		n := utf8.RuneCountInString(word)
		switch {
		case i == 0:
		case line+1+n > width:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += n
	}
	return b.String()
}
