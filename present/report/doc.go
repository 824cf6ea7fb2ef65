// Package report renders runs for reading: a table of metrics (mean ±
// standard deviation across seeds) as text, Markdown, LaTeX or CSV, the
// grid of a sweep with the selected configuration marked, and the number
// formats they share. The files that store runs (records CSV, models) are
// package rundir/runfile's.
package report
