package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fedlab/fedlab/internal/escape"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Grid is a table ready to render: a title, a caption saying what the
// numbers are, a header and rows. The first Keys columns name a row; the
// others hold statistics.
type Grid struct {
	Title   string
	Caption string // e.g. "mean ± sample std over 3 seeds"
	Header  []string
	// Display is the header as Markdown and LaTeX show it (the metrics'
	// display names, e.g. "optimality gap Φ(w) − Φ(w*)" for opt_gap);
	// empty means Header. Text and CSV keep the names (those the
	// command line takes).
	Display []string
	Keys    int
	Rows    [][]Cell
	// Mark shows bold cells in text as "*" (a sweep's selected cell);
	// otherwise text tables show no bold.
	Mark bool
}

// Cell is one entry of a Grid.
type Cell struct {
	Text string  // the number as shown ("0.670 ± 0.062"), or a key; "" if no value
	Note string  // why values are missing ("1 diverged", "diverged@15", "failed")
	Bold bool    // best value of its group
	Mean float64 // the numbers behind Text, for CSV export (N = 0: none)
	Std  float64
	N    int
}

// String is the text of the cell with its note: "0.7 (1 diverged)",
// "diverged@15", or "–" for an empty cell.
func (c Cell) String() string {
	switch {
	case c.Text != "" && c.Note != "":
		return c.Text + " (" + c.Note + ")"
	case c.Text != "":
		return c.Text
	case c.Note != "":
		return c.Note
	}
	return "–"
}

// Formats lists the table formats: terminal text, Markdown, LaTeX
// (booktabs) and CSV.
var Formats = []string{"text", "md", "latex", "csv"}

// DefaultWidth is the terminal width text tables fit in.
const DefaultWidth = 100

// Render writes the grid in a format of Formats ("" is text); text tables
// wider than width (0: DefaultWidth) are split into several blocks of
// columns, each repeating the key columns.
func (g Grid) Render(w io.Writer, format string, width int) error {
	switch format {
	case "", "text":
		if width <= 0 {
			width = DefaultWidth
		}
		return g.text(w, width)
	case "md", "markdown":
		return g.markdown(w)
	case "latex", "tex":
		return g.latex(w)
	case "csv":
		return g.csv(w)
	}
	return fmt.Errorf("table format %q: want one of %s", format, strings.Join(Formats, ", "))
}

// text renders aligned columns: keys left, numbers right, a rule under
// the header, the title and caption above.
func (g Grid) text(w io.Writer, width int) error {
	header := make([]string, len(g.Header))
	widths := make([]int, len(g.Header))
	for j, h := range g.Header {
		header[j] = escape.Line(h)
		widths[j] = utf8.RuneCountInString(header[j])
	}
	for i, row := range g.Rows {
		for j := range row {
			widths[j] = max(widths[j], utf8.RuneCountInString(g.textCell(i, j)))
		}
	}
	right := g.rightAligned()
	const gap = 2
	keyWidth := 0
	for j := range g.Keys {
		keyWidth += widths[j] + gap
	}
	// blocks of value columns that fit the width next to the key columns
	var blocks [][]int
	used := keyWidth
	for j := g.Keys; j < len(g.Header); j++ {
		if len(blocks) == 0 || (used+widths[j] > width && len(blocks[len(blocks)-1]) > 0) {
			blocks = append(blocks, nil)
			used = keyWidth
		}
		blocks[len(blocks)-1] = append(blocks[len(blocks)-1], j)
		used += widths[j] + gap
	}
	var b strings.Builder
	if head := g.heading(); head != "" {
		b.WriteString(escape.Line(head) + "\n")
	}
	for k, block := range blocks {
		if k > 0 {
			b.WriteString("\n")
		}
		cols := make([]int, 0, g.Keys+len(block))
		for j := range g.Keys {
			cols = append(cols, j)
		}
		cols = append(cols, block...)
		if err := g.textBlock(&b, cols, header, right); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// textBlock renders the columns cols of the grid with tablewriter: the
// header, a rule under each column, the rows; columns two spaces apart,
// numbers (and integer keys) right-aligned, no borders, trailing spaces
// trimmed.
func (g Grid) textBlock(b *strings.Builder, cols []int, header []string, right []bool) error {
	align := make([]tw.Align, len(cols))
	head := make([]string, len(cols))
	for i, j := range cols {
		align[i], head[i] = tw.AlignLeft, header[j]
		if right[j] {
			align[i] = tw.AlignRight
		}
	}
	symbols := tw.NewSymbolCustom("fedlab-text").WithRow("─").WithColumn("  ").WithCenter("  ").WithHeaderMid("  ")
	var out strings.Builder
	t := tablewriter.NewTable(&out,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone, Symbols: symbols,
			Settings: tw.Settings{Separators: tw.Separators{BetweenColumns: tw.On, BetweenRows: tw.Off}, Lines: tw.Lines{ShowHeaderLine: tw.On}},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithRowAutoWrap(tw.WrapNone), tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off), tablewriter.WithPadding(tw.Padding{Overwrite: true}),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}))
	t.Header(head)
	for i := range g.Rows {
		row := make([]string, len(cols))
		for k, j := range cols {
			row[k] = g.textCell(i, j)
		}
		if err := t.Append(row); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return nil
}

// CellText is the text of the cell in row i and column j: a statistic
// with its note, or a key, left blank where it repeats the row above
// (with the keys before it).
func (g Grid) CellText(i, j int) string {
	if j >= g.Keys {
		return g.Rows[i][j].String()
	}
	if i > 0 && j < g.Keys-1 {
		same := true
		for k := 0; k <= j; k++ {
			same = same && g.Rows[i][k].Text == g.Rows[i-1][k].Text
		}
		if same {
			return ""
		}
	}
	return g.Rows[i][j].Text
}

// textCell is CellText as text tables show it: bold cells of a grid
// whose bold marks a single choice (Mark) start with "*".
func (g Grid) textCell(i, j int) string {
	text := escape.Line(g.CellText(i, j))
	if g.Mark && g.Rows[i][j].Bold {
		return "*" + text
	}
	return text
}

// displayHeader is Display, or Header when Display is not set.
func (g Grid) displayHeader() []string {
	if len(g.Display) == len(g.Header) {
		return g.Display
	}
	return g.Header
}

// rightAligned tells which columns align right: the statistics, and keys
// that are all integers (rounds).
func (g Grid) rightAligned() []bool {
	right := make([]bool, len(g.Header))
	for j := range right {
		right[j] = true
		for _, row := range g.Rows {
			if _, err := strconv.Atoi(row[j].Text); j < g.Keys && row[j].Text != "" && err != nil {
				right[j] = false
			}
		}
	}
	return right
}

// heading is "Title (caption)", the caption alone, or "".
func (g Grid) heading() string {
	switch {
	case g.Title != "" && g.Caption != "":
		return g.Title + " (" + g.Caption + ")"
	case g.Title != "":
		return g.Title
	}
	return g.Caption
}

// markdown renders a GitHub-flavoured Markdown table (numbers
// right-aligned, best values bold) followed by a pandoc-style caption.
func (g Grid) markdown(w io.Writer) error {
	esc := escape.Markdown
	align := make([]tw.Align, len(g.Header))
	for j, right := range g.rightAligned() {
		align[j] = tw.AlignLeft
		if right {
			align[j] = tw.AlignRight
		}
	}
	head := make([]string, len(g.Header))
	for j, h := range g.displayHeader() {
		head[j] = esc(h)
	}
	var b strings.Builder
	t := tablewriter.NewTable(&b, tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithRowAutoWrap(tw.WrapNone), tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}))
	t.Header(head)
	for i, row := range g.Rows {
		cells := make([]string, len(row))
		for j, c := range row {
			cells[j] = esc(g.CellText(i, j))
			if c.Bold {
				cells[j] = "**" + cells[j] + "**"
			}
		}
		if err := t.Append(cells); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if head := g.heading(); head != "" {
		b.WriteString("\nTable: " + esc(head) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// latex renders a booktabs table environment: keys left-aligned, numbers
// right-aligned in math mode ($0.670 \pm 0.062$, bold with \mathbf), the
// title and caption as \caption.
func (g Grid) latex(w io.Writer) error {
	var b strings.Builder
	b.WriteString("\\begin{table}[t]\n\\centering\n")
	if head := g.heading(); head != "" {
		b.WriteString("\\caption{" + latexText(head) + "}\n")
	}
	b.WriteString("\\begin{tabular}{")
	for _, right := range g.rightAligned() {
		b.WriteString(map[bool]string{false: "l", true: "r"}[right])
	}
	b.WriteString("}\n\\toprule\n")
	heads := make([]string, len(g.Header))
	for j, h := range g.displayHeader() {
		heads[j] = latexText(h)
	}
	b.WriteString(strings.Join(heads, " & ") + " \\\\\n\\midrule\n")
	for i, row := range g.Rows {
		cells := make([]string, len(row))
		for j, c := range row {
			if j < g.Keys || c.Text == "" {
				cells[j] = latexText(g.CellText(i, j))
				continue
			}
			num := strings.ReplaceAll(c.Text, " ± ", ` \pm `)
			if c.Bold {
				num = `\mathbf{` + num + `}`
			}
			cells[j] = "$" + num + "$"
			if c.Note != "" {
				cells[j] += " (" + latexText(c.Note) + ")"
			}
		}
		b.WriteString(strings.Join(cells, " & ") + " \\\\\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// latexText escapes free text for LaTeX (escape.LaTeX), "±" as in the
// numbers.
func latexText(s string) string { return escape.LaTeX(s) }

// csv renders the key columns and, per statistic column h, the columns
// h (the mean, full precision), h_std (sample standard deviation) and h_n
// (values averaged); empty where there is no value.
func (g Grid) csv(w io.Writer) error {
	cw := csv.NewWriter(w)
	header := append([]string{}, g.Header[:g.Keys]...)
	for _, h := range g.Header[g.Keys:] {
		header = append(header, h, h+"_std", h+"_n")
	}
	if err := cw.Write(escape.Cells(header)); err != nil {
		return err
	}
	for _, row := range g.Rows {
		line := make([]string, 0, len(header))
		for j, c := range row {
			if j < g.Keys {
				line = append(line, escape.Cell(c.Text))
				continue
			}
			if c.N == 0 {
				line = append(line, "", "", "0")
				continue
			}
			std := ""
			if c.N > 1 {
				std = strconv.FormatFloat(c.Std, 'g', -1, 64)
			}
			line = append(line, strconv.FormatFloat(c.Mean, 'g', -1, 64), std, strconv.Itoa(c.N))
		}
		if err := cw.Write(line); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
