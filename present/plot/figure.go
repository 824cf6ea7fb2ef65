package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"unicode/utf8"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/atomicfile"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/metrics"
	gonum "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Figure is a drawn figure: panels (one per metric) in a grid, one legend
// beside them, a title above.
type Figure struct {
	Panels []*gonum.Plot
	Legend gonum.Legend
	Title  string
	// Names and Styles of the series, in legend order.
	Names  []string
	Styles []Style
	Width  vg.Length
	Height vg.Length
	cols   int
	title  text.Style
	// endLegend: the legend explains the end marker of diverged series.
	endLegend bool
	ends      []plotter.XY // where the end markers are drawn, in drawing order
	refs      []string     // legend entries of the reference lines
}

// Figure size defaults, marker count and the resolution of PNG files.
const (
	defaultWidth  = 16 // cm
	defaultHeight = 10 // cm, per row of panels
	defaultFont   = 10 // points
	markersPerRun = 6
	dpi           = 150
	gap           = 6 // points between panels, legend and edges
)

// NewFigure draws the runs: a panel per metric, a line per run name (the
// mean over the seeds) with a translucent band of mean ± std where
// several runs contribute (on a log scale the band's lower edge is
// clipped at a tenth of the mean), markers at a few points of each line.
func NewFigure(runs []experiment.Run, opts Options) (*Figure, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	return build(opts, func(metric string) ([]Series, error) { return Lines(runs, metric, opts) })
}

// build draws a panel per metric of opts with the series seriesOf gives.
func build(opts Options, seriesOf func(metric string) ([]Series, error)) (*Figure, error) {
	list := opts.metricList()
	fs := vg.Points(opts.FontSize)
	if fs == 0 {
		fs = defaultFont
	}
	f := &Figure{Title: escape.Line(opts.Title), cols: min(len(list), 2), Legend: gonum.NewLegend()}
	f.Legend.TextStyle.Font.Size = fs
	f.Legend.Top, f.Legend.Left = true, true
	f.Legend.ThumbnailWidth = 2.4 * fs
	f.Legend.Padding = fs * 0.2
	f.title = text.Style{Color: color.Black, Font: font.From(gonum.DefaultFont, fs*1.2), XAlign: draw.XCenter,
		YAlign: draw.YTop, Handler: gonum.DefaultTextHandler}
	rows := (len(list) + f.cols - 1) / f.cols
	f.Width = vg.Length(opts.Width) * vg.Centimeter
	if f.Width == 0 {
		f.Width = defaultWidth * vg.Centimeter
	}
	f.Height = vg.Length(opts.Height) * vg.Centimeter
	if f.Height == 0 {
		f.Height = vg.Length(defaultHeight*rows) * vg.Centimeter
	}
	index := map[string]int{}
	for _, m := range list {
		series, err := seriesOf(m)
		if err != nil {
			return nil, err
		}
		p, err := f.panel(m, series, opts, fs, index)
		if err != nil {
			return nil, err
		}
		f.Panels = append(f.Panels, p)
	}
	for _, n := range opts.Notes {
		name := escape.Line(n)
		f.Legend.Add(name)
		f.Names = append(f.Names, name)
		f.Styles = append(f.Styles, Style{})
	}
	// the legend needs room beside the panels and at least its height
	w, h := f.legendSize()
	f.Width = max(f.Width, 2*w+3*gap)
	f.Height = max(f.Height, h+f.titleHeight()+2*gap)
	if f.Title != "" {
		f.Width = max(f.Width, f.title.Rectangle(f.Title).Size().X+2*gap)
	}
	if limit := MaxSize * vg.Centimeter; f.Width > limit || f.Height > limit {
		return nil, f.tooLarge()
	}
	return f, nil
}

// tooLarge says why the figure outgrew MaxSize: its longest legend entry
// or its number of entries.
func (f *Figure) tooLarge() error {
	longest := ""
	for _, n := range f.Names {
		if utf8.RuneCountInString(n) > utf8.RuneCountInString(longest) {
			longest = n
		}
	}
	w, h := f.Width/vg.Centimeter, f.Height/vg.Centimeter
	rows := (len(f.Panels) + f.cols - 1) / f.cols
	if h > MaxSize && float64(rows*defaultHeight) > MaxSize {
		return fmt.Errorf("the figure would be %.0f × %.0f cm, more than %g cm: %d panels in %d rows of %d cm; draw fewer metrics per figure or give a height",
			w, h, MaxSize, len(f.Panels), rows, defaultHeight)
	}
	if utf8.RuneCountInString(longest) > 40 && w > MaxSize {
		short := Truncate(longest, 40)
		return fmt.Errorf("the figure would be %.0f × %.0f cm, more than %g cm: the legend entry %q (%d characters) is too long; shorten the label",
			w, h, MaxSize, short, utf8.RuneCountInString(longest))
	}
	return fmt.Errorf("the figure would be %.0f × %.0f cm, more than %g cm: %d legend entries (series and reference lines) at font size %g pt; draw fewer series or use a smaller font_size",
		w, h, MaxSize, len(f.Names), float64(f.Legend.TextStyle.Font.Size))
}

// Truncate cuts s to n characters, marking the cut with "…".
func Truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// panel draws one metric's series; index assigns each series name its
// style across panels, and the legend gets an entry per new name.
func (f *Figure) panel(metric string, series []Series, opts Options, fs vg.Length, index map[string]int) (*gonum.Plot, error) {
	p := gonum.New()
	for _, sty := range []*text.Style{&p.X.Label.TextStyle, &p.Y.Label.TextStyle} {
		sty.Font.Size = fs
	}
	for _, sty := range []*text.Style{&p.X.Tick.Label, &p.Y.Tick.Label} {
		sty.Font.Size = fs * 0.9
	}
	x := opts.X
	if x == "" {
		x = "round"
	}
	// free text is kept on one line of the figure and the SVG
	p.X.Label.Text = xAxes[x]
	if p.X.Label.Text == "" { // a metric
		p.X.Label.Text = escape.Line(metrics.DisplayOf(x).Label)
	}
	if opts.XLabel != "" {
		p.X.Label.Text = escape.Line(opts.XLabel)
	}
	p.Y.Label.Text = escape.Line(metrics.DisplayOf(metric).Label)
	if opts.YLabel != "" {
		p.Y.Label.Text = escape.Line(opts.YLabel)
	}
	logX, logY := opts.XScale == Log, opts.yScale(metric) == Log
	p.X.Tick.Marker, p.Y.Tick.Marker = linearTicks{}, linearTicks{}
	if logX {
		p.X.Scale, p.X.Tick.Marker = gonum.LogScale{}, logTicks{}
	}
	if logY {
		p.Y.Scale, p.Y.Tick.Marker = gonum.LogScale{}, logTicks{}
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color, grid.Horizontal.Color = color.Gray{0xdd}, color.Gray{0xdd}
	p.Add(grid)
	lo, hi := bandLimits(metric, series, logX, logY)
	type shape struct {
		s          Series
		line, band plotter.XYs
	}
	var shapes []shape
	for _, s := range series {
		line, band := points(s, logX, logY, lo, hi)
		if len(line) > 0 {
			shapes = append(shapes, shape{s, line, band})
		}
	}
	// Diverged series are cut at their divergence; the y axis is fitted to
	// the others (with the reference lines), and the diverged ones are
	// clipped to it, their end marked.
	var kept []plotter.XYs
	mixed := false
	for _, sh := range shapes {
		if sh.s.Diverged == 0 {
			kept = append(kept, sh.line, sh.band)
		} else {
			mixed = true
		}
	}
	mixed = mixed && len(kept) > 0
	ymin, ymax := math.Inf(1), math.Inf(-1)
	if mixed {
		for _, h := range opts.HLines {
			if h.Metric == "" || h.Metric == metric {
				kept = append(kept, plotter.XYs{{Y: h.Value}})
			}
		}
		for _, xys := range kept {
			for _, q := range xys {
				ymin, ymax = math.Min(ymin, q.Y), math.Max(ymax, q.Y)
			}
		}
	}
	inside := func(xys plotter.XYs) plotter.XYs {
		if !mixed {
			return xys
		}
		return slices.DeleteFunc(slices.Clone(xys), func(q plotter.XY) bool { return q.Y < ymin || q.Y > ymax })
	}
	drawn, ends := 0, 0
	for _, sh := range shapes {
		s, line, band := sh.s, sh.line, sh.band
		i, ok := index[s.Name]
		if !ok {
			i = len(index)
			index[s.Name] = i
		}
		st := StyleOf(i)
		if len(band) > 0 {
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, err
			}
			poly.Color = color.NRGBA{R: st.Color.R, G: st.Color.G, B: st.Color.B, A: 0x30}
			poly.LineStyle.Width = 0
			p.Add(poly)
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes = st.Color, vg.Points(1.5), st.Dashes
		marks, err := plotter.NewScatter(markerPoints(line, i))
		if err != nil {
			return nil, err
		}
		marks.XYs = inside(marks.XYs)
		marks.GlyphStyle = draw.GlyphStyle{Color: st.Color, Radius: fs * 0.28, Shape: st.Glyph}
		p.Add(l, marks)
		if s.Diverged > 0 {
			end := line[len(line)-1]
			if mixed {
				end.Y = min(max(end.Y, ymin), ymax)
			}
			e, err := f.endMarker(end, st.Color, fs)
			if err != nil {
				return nil, err
			}
			p.Add(e)
			f.ends = append(f.ends, end)
			ends++
		}
		if !ok {
			f.Legend.Add(escape.Line(s.Legend()), l, marks)
			f.Names = append(f.Names, escape.Line(s.Legend()))
			f.Styles = append(f.Styles, st)
		}
		drawn++
	}
	if ends > 0 && !f.endLegend {
		e, _ := f.endMarker(plotter.XY{}, color.Black, fs)
		f.Legend.Add(endLegend, e)
		f.Names = append(f.Names, endLegend)
		f.Styles = append(f.Styles, Style{Color: color.NRGBA{A: 0xff}})
		f.endLegend = true
	}
	if drawn == 0 {
		what := "finite"
		if logY {
			what = "positive"
		}
		return nil, fmt.Errorf("nothing to draw: %s has no %s values", metric, what)
	}
	if err := f.hlines(p, metric, opts, fs); err != nil {
		return nil, err
	}
	if mixed {
		p.Y.Min, p.Y.Max = ymin, ymax
	}
	if len(opts.XLim) == 2 {
		p.X.Min, p.X.Max = opts.XLim[0], opts.XLim[1]
	}
	if len(opts.YLim) == 2 {
		p.Y.Min, p.Y.Max = opts.YLim[0], opts.YLim[1]
	}
	return p, nil
}

// hlines draws the reference lines of opts that belong to metric's panel
// across the x range of the panel's data (or its xlim), black and dashed;
// each label gets one legend entry.
func (f *Figure) hlines(p *gonum.Plot, metric string, opts Options, fs vg.Length) error {
	xmin, xmax := p.X.Min, p.X.Max // Add has fitted them to the series
	if len(opts.XLim) == 2 {
		xmin, xmax = opts.XLim[0], opts.XLim[1]
	}
	for _, h := range opts.HLines {
		if h.Metric != "" && h.Metric != metric {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: h.Value}, {X: xmax, Y: h.Value}})
		if err != nil {
			return err
		}
		l.Color, l.Width, l.Dashes = color.Black, vg.Points(1.2), []vg.Length{fs * 0.8, fs * 0.4}
		p.Add(l)
		if name := escape.Line(h.Label); name != "" && !slices.Contains(f.refs, name) {
			f.refs = append(f.refs, name)
			f.Legend.Add(name, l)
			f.Names = append(f.Names, name)
			f.Styles = append(f.Styles, Style{Color: color.NRGBA{A: 0xff}, Dashes: l.Dashes})
		}
	}
	return nil
}

// markerPoints picks markersPerRun points spread along the line, shifted
// by the series index so that markers of close lines do not coincide.
func markerPoints(line plotter.XYs, i int) plotter.XYs {
	if len(line) <= markersPerRun {
		return line
	}
	var out plotter.XYs
	step := float64(len(line)-1) / markersPerRun
	for k := range markersPerRun {
		j := int(math.Round(step * (float64(k) + 0.5 + 0.4*(float64(i%5)/5-0.4))))
		out = append(out, line[min(max(j, 0), len(line)-1)])
	}
	return out
}

// endLegend is the legend entry of the end marker of diverged series.
const endLegend = "end of a diverged series"

// endMarker is the mark at the last point of a diverged series: a large
// cross in the series' colour.
func (f *Figure) endMarker(at plotter.XY, c color.Color, fs vg.Length) (*plotter.Scatter, error) {
	e, err := plotter.NewScatter(plotter.XYs{at})
	if err != nil {
		return nil, err
	}
	e.GlyphStyle = draw.GlyphStyle{Color: c, Radius: fs * 0.55, Shape: thickCross{}}
	return e, nil
}

// thickCross is a cross glyph drawn with a heavy stroke, so the end of a
// diverged series stands out from the series' markers.
type thickCross struct{}

// DrawGlyph draws the cross.
func (thickCross) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: sty.Radius / 2.5})
	r := sty.Radius
	for _, d := range []vg.Point{{X: r, Y: r}, {X: r, Y: -r}} {
		var p vg.Path
		p.Move(pt.Sub(d))
		p.Line(pt.Add(d))
		c.Stroke(p)
	}
}

// bandLimits are the limits of the ± std bands of metric's panel: the
// metric's range (0 below for a nonnegative metric, registered as such or
// with no negative value in these series; 1 above for a fraction) and, on
// a log axis, the smallest positive value drawn below.
func bandLimits(metric string, series []Series, logX, logY bool) (lo, hi float64) {
	d := metrics.DisplayOf(metric)
	lo, hi = math.Inf(-1), math.Inf(1)
	nonneg := d.NonNegative || d.Unit
	if !nonneg {
		nonneg = len(series) > 0
		for _, s := range series {
			nonneg = nonneg && s.NonNegative
		}
	}
	if nonneg {
		lo = 0
	}
	if d.Unit {
		hi = 1
	}
	if logY {
		smallest := math.Inf(1)
		for _, s := range series {
			line, _ := points(s, logX, logY, lo, hi)
			for _, q := range line {
				smallest = math.Min(smallest, q.Y)
			}
		}
		lo = smallest
	}
	return lo, hi
}

// points returns the line and the band polygon of a series, leaving out
// non-finite values (and non-positive ones on a log scale); the band lies
// within [lo, hi] (and above a tenth of the mean on a log scale).
func points(s Series, logX, logY bool, lo, hi float64) (line, band plotter.XYs) {
	var upper, lower plotter.XYs
	for i := range s.X {
		m := s.Mean[i]
		if math.IsNaN(m) || math.IsInf(m, 0) || math.IsNaN(s.X[i]) || (logY && m <= 0) || (logX && s.X[i] <= 0) {
			continue
		}
		line = append(line, plotter.XY{X: s.X[i], Y: m})
		if s.Count[i] < 2 || math.IsNaN(s.Std[i]) || math.IsInf(s.Std[i], 0) {
			continue
		}
		down := max(m-s.Std[i], lo)
		if logY {
			down = max(down, m/10)
		}
		upper = append(upper, plotter.XY{X: s.X[i], Y: min(m+s.Std[i], hi)})
		lower = append(lower, plotter.XY{X: s.X[i], Y: min(down, m)})
	}
	if len(upper) < 2 {
		return line, nil
	}
	slices.Reverse(lower)
	return line, append(upper, lower...)
}

// legendSize is the width and height the legend's entries take.
func (f *Figure) legendSize() (w, h vg.Length) {
	sty := f.Legend.TextStyle
	for i, name := range f.Names {
		w = max(w, f.Legend.ThumbnailWidth+sty.Rectangle(" "+name).Max.X)
		h += sty.Rectangle(name).Size().Y
		if i > 0 {
			h += f.Legend.Padding
		}
	}
	return w + sty.Rectangle(" ").Max.X, h
}

// titleHeight is the height the title takes (0 without one).
func (f *Figure) titleHeight() vg.Length {
	if f.Title == "" {
		return 0
	}
	return f.title.Rectangle(f.Title).Size().Y + gap
}

// Layout is where the parts of a figure go: the whole canvas, the legend
// and each panel's data area.
type Layout struct {
	Canvas, Legend vg.Rectangle
	Data           []vg.Rectangle
}

// Layout computes the layout of the figure on a canvas of its size.
func (f *Figure) Layout() Layout {
	c := draw.New(vgimg.New(f.Width, f.Height))
	return f.layout(c)
}

// layout places the title on top, the legend at the right (top-aligned)
// and the panels in the rest, aligned in a grid.
func (f *Figure) layout(c draw.Canvas) Layout {
	l := Layout{Canvas: c.Rectangle}
	lw, lh := f.legendSize()
	top := c.Max.Y - gap - f.titleHeight()
	l.Legend = vg.Rectangle{Min: vg.Point{X: c.Max.X - gap - lw, Y: top - lh}, Max: vg.Point{X: c.Max.X - gap, Y: top}}
	for _, pc := range f.panelCanvases(c, l.Legend.Min.X-gap) {
		l.Data = append(l.Data, pc.data)
	}
	return l
}

// panelCanvas is the area of one panel and of its data.
type panelCanvas struct {
	area, data vg.Rectangle
	canvas     draw.Canvas
}

// panelCanvases places the panels left of right, under the title.
func (f *Figure) panelCanvases(c draw.Canvas, right vg.Length) []panelCanvas {
	area := c
	area.Max.X = right
	area.Max.Y -= f.titleHeight()
	area.Min.X += gap / 2
	area.Min.Y += gap / 2
	rows := (len(f.Panels) + f.cols - 1) / f.cols
	grid := make([][]*gonum.Plot, rows)
	for r := range grid {
		grid[r] = make([]*gonum.Plot, f.cols)
		for k := range f.cols {
			if i := r*f.cols + k; i < len(f.Panels) {
				grid[r][k] = f.Panels[i]
			}
		}
	}
	tiles := draw.Tiles{Rows: rows, Cols: f.cols, PadX: 3 * gap, PadY: 2 * gap, PadTop: gap / 2}
	canvases := gonum.Align(grid, tiles, area)
	var out []panelCanvas
	for i, p := range f.Panels {
		pc := canvases[i/f.cols][i%f.cols]
		out = append(out, panelCanvas{area: pc.Rectangle, data: p.DataCanvas(pc).Rectangle, canvas: pc})
	}
	return out
}

// fitTicks gives each axis the most tick labels (at most
// defaultIntervals steps) that fit its side of the data area: side by side
// with a gap of a label's height on the x axis, a label's height apart
// on the y axis.
func (f *Figure) fitTicks(c draw.Canvas, right vg.Length) {
	for i, pc := range f.panelCanvases(c, right) {
		p := f.Panels[i]
		for _, ax := range []struct {
			axis  *gonum.Axis
			log   bool
			space vg.Length
			x     bool
		}{{&p.X, isLog(p.X), pc.data.Size().X, true}, {&p.Y, isLog(p.Y), pc.data.Size().Y, false}} {
			for n := defaultIntervals; n >= 1; n-- {
				var m gonum.Ticker = linearTicks{intervals: n}
				if ax.log {
					m = logTicks{intervals: n}
				}
				ax.axis.Tick.Marker = m
				if labelsFit(m.Ticks(ax.axis.Min, ax.axis.Max), ax.axis.Tick.Label, ax.space, ax.x) {
					break
				}
			}
		}
	}
}

// isLog reports whether the axis has a log scale.
func isLog(a gonum.Axis) bool {
	_, ok := a.Scale.(gonum.LogScale)
	return ok
}

// labelsFit reports whether the labels of ticks fit in space along an
// axis (x: their widths plus a gap of one label height each; y: twice
// their heights).
func labelsFit(ticks []gonum.Tick, sty text.Style, space vg.Length, x bool) bool {
	var need vg.Length
	for _, t := range ticks {
		if t.Label == "" {
			continue
		}
		r := sty.Rectangle(t.Label).Size()
		if x {
			need += r.X + r.Y
		} else {
			need += 2 * r.Y
		}
	}
	return need <= space
}

// Draw draws the figure on c.
func (f *Figure) Draw(c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	l := f.layout(c)
	f.fitTicks(c, l.Legend.Min.X-gap)
	if f.Title != "" { // centred over the panels if it fits there, over the figure otherwise
		x := (c.Min.X + l.Legend.Min.X) / 2
		if w := f.title.Rectangle(f.Title).Size().X; w/2 > x-c.Min.X-gap {
			x = c.Center().X
		}
		c.FillText(f.title, vg.Point{X: x, Y: c.Max.Y - gap}, f.Title)
	}
	for i, pc := range f.panelCanvases(c, l.Legend.Min.X-gap) {
		f.Panels[i].Draw(pc.canvas)
	}
	lc := c
	lc.Rectangle = l.Legend
	f.Legend.Draw(lc)
}

// WriterTo renders the figure in a format of AllFormats (PNG at 150 dpi).
func (f *Figure) WriterTo(format string) (io.WriterTo, error) {
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.Width, f.Height), vgimg.UseDPI(dpi))}
	case "svg", "pdf":
		wt, err := newVectorCanvas(format, f.Width, f.Height)
		if err != nil {
			return nil, err
		}
		c = wt
	default:
		return nil, fmt.Errorf("format %q: want png, svg or pdf", format)
	}
	f.Draw(draw.New(c))
	return c, nil
}

// Save draws the runs and writes base.FORMAT for each format (nil means
// Formats), atomically. It returns the paths written.
func Save(base string, runs []experiment.Run, opts Options, formats []string) ([]string, error) {
	if formats == nil {
		formats = Formats
	}
	for _, f := range formats {
		if !slices.Contains(AllFormats, f) {
			return nil, fmt.Errorf("format %q: want png, svg or pdf", f)
		}
	}
	fig, err := NewFigure(runs, opts)
	if err != nil {
		return nil, err
	}
	return fig.save(base, formats)
}

// save writes base.FORMAT for each format, atomically, and returns the
// paths written.
func (f *Figure) save(base string, formats []string) ([]string, error) {
	var paths []string
	for _, format := range formats {
		wt, err := f.WriterTo(format)
		if err != nil {
			return nil, err
		}
		path := base + "." + format
		if err := atomicfile.Write(path, func(w io.Writer) error { _, err := wt.WriteTo(w); return err }); err != nil {
			return nil, err
		}
		paths = append(paths, filepath.Clean(path))
	}
	return paths, nil
}
