package htmlreport

import (
	"html/template"

	"github.com/fedlab/fedlab/present/report"
)

// tmpl is the page; html/template escapes every value it inserts.
var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"cell": func(g report.Grid, i, j int) string { return g.CellText(i, j) },
	"key":  func(g report.Grid, j int) bool { return j < g.Keys },
	"inc":  func(i int) int { return i + 1 },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>fedlab report: {{.Name}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; border-bottom: 2px solid #332288; padding-bottom: .2em; }
h2 { font-size: 1.25em; margin-top: 2em; color: #332288; }
h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: .9em; }
th, td { padding: .2em .7em; border-bottom: 1px solid #ddd; vertical-align: top; }
thead th { border-bottom: 2px solid #555; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
caption { caption-side: top; text-align: left; color: #555; font-style: italic; padding-bottom: .3em; }
pre { background: #f6f6f6; border: 1px solid #ddd; padding: .8em; overflow-x: auto; font-size: .85em; }
.meta td:first-child { color: #555; }
.bad { color: #882255; }
.note { color: #666; font-style: italic; }
figure { margin: 1em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
nav ul { columns: 2; }
.scroll { overflow-x: auto; max-width: 100%; }
</style>
</head>
<body>
<h1>fedlab report: {{.Name}}</h1>
<table class="meta">
<tr><td>run directory</td><td>{{.Dir}}</td></tr>
<tr><td>status</td><td>{{.Status}}{{if .Error}} <span class="bad">({{.Error}})</span>{{end}}</td></tr>
<tr><td>started</td><td>{{.Started}}</td></tr>
{{if .Finished}}<tr><td>finished</td><td>{{.Finished}} ({{.Duration}})</td></tr>{{end}}
<tr><td>run time (sum over runs)</td><td>{{.RunTime}}</td></tr>
<tr><td>build</td><td>fedlab {{.Version}}, {{.Go}}</td></tr>
<tr><td>report generated</td><td>{{.Generated}}</td></tr>
</table>
<nav><ul>
<li><a href="#script">Script</a></li>
{{if .Claims}}<li><a href="#claims">Claims</a></li>{{end}}
{{range .Calls}}<li><a href="#{{.Anchor}}">{{.Title}}</a></li>
{{end}}<li><a href="#problems">Diverged and failed runs</a></li>
{{if .Unmoved}}<li><a href="#unmoved">Runs whose model did not move</a></li>{{end}}
</ul></nav>

<h2 id="script">Script</h2>
<p class="note">{{.ScriptNote}}</p>
{{if .Script}}<pre>{{.Script}}</pre>{{end}}
{{with .Claims}}
<h2 id="claims">Claims</h2>
<p class="note">The script's claims (fedlab.claim) as its last session judged them: {{.Holds}} hold, {{.Fails}} fail, {{.NotEvaluated}} not evaluated. <code>fedlab claims DIR</code> judges them again from the stored runs.</p>
<table>
<thead><tr><th>#</th><th>claim</th><th>source</th><th>verdict</th><th>measured</th></tr></thead>
<tbody>{{range $i, $c := .Results}}<tr><td class="num">{{inc $i}}</td><td>{{$c.Text}} <span class="note">({{$c.Where}})</span></td><td>{{$c.Source}}</td><td{{if ne (printf "%s" $c.Verdict) "holds"}} class="bad"{{end}}>{{$c.Verdict}}</td><td>{{$c.Measured}}{{if $c.Why}}why: {{$c.Why}}{{end}}</td></tr>
{{end}}</tbody>
</table>
{{end}}

{{range .Calls}}
<h2 id="{{.Anchor}}">{{.Title}}</h2>
{{if .Pending}}<p class="bad">{{.Pending}} of {{.Runs}} runs pending: left to other shards or not run yet{{if .Progress}}; in progress, each continued from its checkpoint by the next fedlab run of the script into this directory:{{else}}.{{end}}</p>
{{with .Progress}}<ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}{{end}}
<details{{if le (len .Params) 20}} open{{end}}><summary>parameters of {{len .Params}} run names</summary>
<table>
<thead><tr><th>name</th><th>algorithm</th><th>parameters</th><th>seeds</th></tr></thead>
<tbody>{{range .Params}}<tr><td>{{.Name}}</td><td>{{.Algorithm}}</td><td>{{.Params}}</td><td>{{.Seeds}}</td></tr>
{{end}}</tbody>
</table>
</details>
<details><summary>problem and engine settings</summary>
<table>{{range .Settings}}<tr><td>{{.Key}}</td><td>{{.Value}}</td></tr>{{end}}</table>
</details>
{{if .Sweep}}<h3>Sweep</h3><pre>{{.Sweep}}</pre>{{end}}
{{range $g := .Tables}}
<div class="scroll"><table>
<caption>{{if $g.Title}}{{$g.Title}}: {{end}}{{$g.Caption}}{{if $g.Caption}}; best value per round in bold{{end}}</caption>
<thead><tr>{{range $j, $h := $g.Header}}<th{{if not (key $g $j)}} class="num"{{end}}>{{$h}}</th>{{end}}</tr></thead>
<tbody>{{range $i, $row := $g.Rows}}<tr>{{range $j, $c := $row}}<td{{if not (key $g $j)}} class="num"{{end}}>{{if $c.Bold}}<b>{{cell $g $i $j}}</b>{{else}}{{cell $g $i $j}}{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
{{end}}
{{range .Figures}}<figure><img alt="{{.Metric}}" src="{{.Data}}"></figure>
{{end}}
{{if .PlotError}}<p class="note">Not drawn: {{.PlotError}}</p>{{end}}
{{end}}

<h2 id="problems">Diverged and failed runs</h2>
{{if .Problems}}
<table>
<thead><tr><th>call</th><th>name</th><th>seed</th><th>status</th><th>message</th></tr></thead>
<tbody>{{range .Problems}}<tr><td class="num">{{.Call}}</td><td>{{.Label}}</td><td class="num">{{.Seed}}</td><td class="bad">{{.Status}}</td><td>{{.Message}}</td></tr>
{{end}}</tbody>
</table>
{{else}}<p>None.</p>{{end}}
{{if .Unmoved}}
<h2 id="unmoved">Runs whose model did not move</h2>
<table>
<thead><tr><th>call</th><th>name</th><th>seed</th><th>status</th><th>message</th></tr></thead>
<tbody>{{range .Unmoved}}<tr><td class="num">{{.Call}}</td><td>{{.Label}}</td><td class="num">{{.Seed}}</td><td>{{.Status}}</td><td>{{.Message}}</td></tr>
{{end}}</tbody>
</table>
{{end}}
</body>
</html>
`))
