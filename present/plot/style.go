package plot

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Palette is Paul Tol's colour-blind-safe "muted" scheme (nine colours,
// https://personal.sron.nl/~pault/) followed by black: ten colours that
// stay distinguishable under the common colour-vision deficiencies.
var Palette = []color.NRGBA{
	{0x33, 0x22, 0x88, 0xff}, // indigo
	{0xcc, 0x66, 0x77, 0xff}, // rose
	{0x11, 0x77, 0x33, 0xff}, // green
	{0xdd, 0xcc, 0x77, 0xff}, // sand
	{0x88, 0xcc, 0xee, 0xff}, // cyan
	{0x88, 0x22, 0x55, 0xff}, // wine
	{0x44, 0xaa, 0x99, 0xff}, // teal
	{0x99, 0x99, 0x33, 0xff}, // olive
	{0xaa, 0x44, 0x99, 0xff}, // purple
	{0x00, 0x00, 0x00, 0xff}, // black
}

// dashes are the line patterns series cycle through: solid, dashed,
// dotted, dash-dotted.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(1.5), vg.Points(2)},
	{vg.Points(6), vg.Points(2.5), vg.Points(1.5), vg.Points(2.5)},
}

// glyphs are the markers series cycle through.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{},
	draw.RingGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.PlusGlyph{},
}

// Style is how one series is drawn.
type Style struct {
	Color  color.NRGBA
	Dashes []vg.Length
	Glyph  draw.GlyphDrawer
}

// StyleOf returns the style of series i: the colour cycles through the
// ten colours of Palette, the dash pattern through four and the marker
// through eight, all together, so series i and j share both colour and
// dash pattern only if i ≡ j (mod 20), and colour, dashes and marker only
// if i ≡ j (mod 40).
func StyleOf(i int) Style {
	return Style{Color: Palette[i%len(Palette)], Dashes: dashes[i%len(dashes)], Glyph: glyphs[i%len(glyphs)]}
}
