package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/datasets"
	"github.com/fedlab/fedlab/experiment/claims"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/luaapi"
	"github.com/fedlab/fedlab/rundir"
)

// The claims table of docs/reproductions.md lies between these markers.
const (
	claimsBegin = "<!-- claims: begin (generated: see the paragraph above) -->"
	claimsEnd   = "<!-- claims: end -->"
)

// judgedHere are the scripts whose claims TestReproductionClaims runs at
// full scale and judges itself: fast enough for the full suite
// (fco_lasso.lua takes 30 s of CPU).
var judgedHere = map[string]bool{"fedpd_divergence.lua": true, "fco_lasso.lua": true}

// What the "judged" column says of a verdict's origin.
const (
	judgedByTest  = "full scale, by the test"
	judgedFromDir = "full scale, `fedlab claims` on its run directory"
	notJudged     = "not judged here"
)

// claimRow is one row of the claims table: its cells as written (Markdown
// escaped).
type claimRow struct{ script, claim, source, verdict, measured, judged string }

func (r claimRow) key() string { return r.script + "\x00" + r.claim }

func (r claimRow) String() string {
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s |", r.script, r.claim, r.source, r.verdict, r.measured, r.judged)
}

// rowOf is the row of a claim of script judged as judged.
func rowOf(script string, c claims.Result, judged string) claimRow {
	r := claimRow{script: "`" + script + "`", claim: escape.Markdown(c.Text) + " (" + escape.Markdown(c.Where) + ")",
		source: escape.Markdown(c.Source), judged: judged}
	switch {
	case judged == notJudged:
		r.verdict, r.measured = "—", "its runs were not made for this table: run the script, then `fedlab claims --strict DIR`"
	case c.Verdict == claims.NotEvaluated:
		r.verdict, r.measured = "not evaluated", escape.Markdown(c.Why)
	default:
		r.verdict, r.measured = "**"+string(c.Verdict)+"**", escape.Markdown(c.Measured)
	}
	return r
}

// splitRow splits a Markdown table row at its unescaped pipes.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |")
	var cells []string
	var cell strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line):
			cell.WriteByte(line[i])
			cell.WriteByte(line[i+1])
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}

// TestReproductionClaims: docs/reproductions.md's claims table lists every
// claim of every shipped script that declares claims, in the scripts'
// words and places (from a dry run of each script), with verdicts that
// come from fedlab's own evaluation: the scripts of judgedHere are run at
// full scale here and their verdicts and measured numbers must equal the
// table's; the others keep the verdicts written when the table was
// generated from their run directories (FEDLAB_CLAIMS_RUNS=DIR, holding
// DIR/SCRIPT for a run of scripts/SCRIPT.lua), or "not judged here".
// The verdicts the rest of the document takes from the table (claimRef)
// must say what the table says, and its hand-written claim tables must
// take every verdict from it or say "by hand: " (handVerdicts).
// FEDLAB_UPDATE_DOCS=1 rewrites the table and those verdicts. The Fashion-MNIST scripts are
// listed from a copy reading FEDLAB_CLAIMS_FASHION_DIR when the data is
// not installed (listing needs only the files' format), else kept as the
// table has them.
//
// Under -short it checks the document against its own table only (the
// verdicts taken from it and the hand-written ones): listing the claims
// dry-runs every script that declares some, loading its data (15 s of
// CPU, most of it Fashion-MNIST), and the full-scale runs take more.
func TestReproductionClaims(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "reproductions.md"))
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(doc), claimsBegin+"\n")
	table, after, ok2 := strings.Cut(rest, claimsEnd)
	if !ok1 || !ok2 {
		t.Fatalf("docs/reproductions.md lacks the claims table's markers %q and %q", claimsBegin, claimsEnd)
	}
	documented := map[string]claimRow{}
	byScript := map[string][]claimRow{}
	var rows []claimRow
	for _, line := range strings.Split(table, "\n") {
		cells := splitRow(line)
		if len(cells) != 6 || cells[0] == "script" || strings.HasPrefix(cells[0], "---") {
			continue
		}
		r := claimRow{cells[0], cells[1], cells[2], cells[3], cells[4], cells[5]}
		documented[r.key()] = r
		byScript[r.script] = append(byScript[r.script], r)
		rows = append(rows, r)
	}
	if testing.Short() {
		if os.Getenv("FEDLAB_UPDATE_DOCS") != "" {
			t.Fatal("FEDLAB_UPDATE_DOCS=1 rewrites the table from the scripts' claims, which -short does not list: run it without -short")
		}
		checkClaimRefs(t, before, after, string(doc), rows)
		t.Logf("-short: the table's %d rows are not compared with the scripts' claims (the full suite does)", len(rows))
		return
	}
	scripts, err := filepath.Glob(filepath.Join("..", "scripts", "*.lua"))
	if err != nil {
		t.Fatal(err)
	}
	fashionMissing := false
	if _, err := os.Stat(filepath.Join(datasets.FashionMNISTDir, "train-images-idx3-ubyte.gz")); err != nil {
		fashionMissing = true
	}
	runsDir := os.Getenv("FEDLAB_CLAIMS_RUNS")
	var want []claimRow
	hold, fail, notEval, unjudged, declaring := 0, 0, 0, 0, 0
	for _, path := range scripts {
		name := filepath.Base(path)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "fedlab.claim") {
			continue
		}
		declaring++
		listed := path
		if fashionMissing && strings.Contains(string(src), "fedlab.data.fashion_mnist{") {
			dir := os.Getenv("FEDLAB_CLAIMS_FASHION_DIR")
			if dir == "" {
				rows := byScript["`"+name+"`"]
				if len(rows) == 0 {
					t.Errorf("%s declares claims but the table has none (its data is not installed here: give FEDLAB_CLAIMS_FASHION_DIR to list them)", name)
				}
				t.Logf("%s: Fashion-MNIST is not installed: its %d rows are kept as the table has them", name, len(rows))
				want = append(want, rows...)
				continue
			}
			copyDir := t.TempDir()
			listed = filepath.Join(copyDir, name)
			withDir := strings.ReplaceAll(string(src), "fedlab.data.fashion_mnist{", fmt.Sprintf("fedlab.data.fashion_mnist{ dir = %q,", dir))
			if err := os.WriteFile(listed, []byte(withDir), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		declared, err := luaapi.ListClaims(listed, luaapi.Options{Unsafe: listed != path})
		if err != nil {
			t.Errorf("%s: dry run: %v", name, err)
			continue
		}
		judged, how := judge(t, path, name, runsDir)
		if judged != nil && len(judged) != len(declared) {
			t.Errorf("%s: %d claims judged, %d declared", name, len(judged), len(declared))
			continue
		}
		for i, c := range declared {
			var r claimRow
			switch {
			case judged != nil:
				if judged[i].Text != c.Text || judged[i].Where != c.Where {
					t.Errorf("%s: claim %d judged as %q at %s, declared as %q at %s", name, i+1, judged[i].Text, judged[i].Where, c.Text, c.Where)
				}
				r = rowOf(name, judged[i], how)
			default:
				r = rowOf(name, c, notJudged)
				if d, ok := documented[r.key()]; ok && d.judged == judgedFromDir && d.source == r.source {
					r = d // a verdict from a run directory, kept
				}
			}
			want = append(want, r)
		}
	}
	for _, r := range want {
		switch {
		case r.judged == notJudged:
			unjudged++
		case r.verdict == "**holds**":
			hold++
		case r.verdict == "**fails**":
			fail++
		default:
			notEval++
		}
	}
	var b strings.Builder
	b.WriteString("| script | claim (where) | source | verdict | measured | judged |\n|---|---|---|---|---|---|\n")
	for _, r := range want {
		b.WriteString(r.String() + "\n")
	}
	fmt.Fprintf(&b, "\n%d claims of %d scripts: %d hold, %d fail, %d not evaluated, %d not judged here.\n", len(want), declaring, hold, fail, notEval, unjudged)
	got := b.String()
	if os.Getenv("FEDLAB_UPDATE_DOCS") != "" {
		linkedBefore, errs1 := linkClaims(before, want)
		linkedAfter, errs2 := linkClaims(after, want)
		for _, e := range append(append(errs1, errs2...), handVerdicts(string(doc))...) {
			t.Error(e)
		}
		out := linkedBefore + claimsBegin + "\n" + got + claimsEnd + linkedAfter
		if err := os.WriteFile(filepath.Join("..", "docs", "reproductions.md"), []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	checkClaimRefs(t, before, after, string(doc), want)
	if got != table {
		t.Errorf("docs/reproductions.md's claims table differs from the scripts' claims and verdicts; regenerate it with FEDLAB_UPDATE_DOCS=1 (and FEDLAB_CLAIMS_RUNS=DIR for the run directories)\n%s", lineDiff(table, got))
	}
	if declaring < 20 {
		t.Errorf("%d shipped scripts declare claims, want at least 20", declaring)
	}
}

// checkClaimRefs checks that the verdicts docs/reproductions.md (doc, with
// the text before and after its claims table) takes from the table say
// what rows say, and that its hand-written claim tables take every verdict
// from the table or say "by hand: ".
func checkClaimRefs(t *testing.T, before, after, doc string, rows []claimRow) {
	t.Helper()
	linkedBefore, errs1 := linkClaims(before, rows)
	linkedAfter, errs2 := linkClaims(after, rows)
	for _, e := range append(append(errs1, errs2...), handVerdicts(doc)...) {
		t.Error(e)
	}
	if linkedBefore != before || linkedAfter != after {
		t.Errorf("docs/reproductions.md's verdicts that refer to the claims table differ from it; regenerate them with FEDLAB_UPDATE_DOCS=1\n%s", lineDiff(before+after, linkedBefore+linkedAfter))
	}
}

// judge returns the verdicts of script's claims: from a full-scale run
// here (judgedHere), or from its run directory under runsDir; nil when it
// is neither.
func judge(t *testing.T, path, name, runsDir string) ([]claims.Result, string) {
	t.Helper()
	if judgedHere[name] {
		dir := filepath.Join(t.TempDir(), "run")
		if code, _, stderr := runCLI("run", path, "--out", dir, "--quiet"); code != 0 {
			t.Fatalf("fedlab run %s: exit %d: %s", name, code, stderr)
		}
		_, results, err := luaapi.Claims(dir, luaapi.Options{})
		if err != nil {
			t.Fatalf("fedlab claims on the run of %s: %v", name, err)
		}
		return results, judgedByTest
	}
	if runsDir == "" {
		return nil, ""
	}
	dir := filepath.Join(runsDir, strings.TrimSuffix(name, ".lua"))
	m, ok, err := rundir.ReadManifest(dir)
	switch {
	case !ok && err == nil:
		return nil, ""
	case err != nil || m.Status != rundir.StatusComplete:
		t.Logf("%s: not a complete run directory (%v): not judged here", dir, err)
		return nil, ""
	}
	_, results, err := luaapi.Claims(dir, luaapi.Options{})
	if err != nil {
		t.Errorf("fedlab claims %s: %v", dir, err)
		return nil, ""
	}
	return results, judgedFromDir
}

// claimRef is a verdict that docs/reproductions.md takes from its claims
// table: "**SUMMARY** (generated: `PLACE`, `PLACE ~ WORDS`)", where each
// PLACE is the "(where)" of claims in the table (those whose claim contains
// WORDS, when given) and SUMMARY what the table says of them (linkClaims
// writes it).
var claimRef = regexp.MustCompile("\\*\\*([^*|]+)\\*\\* \\(generated: ((?:`[^`|]+`(?:, )?)+)\\)")

// placeOf is the place a claims-table row names at the end of its claim
// cell (Markdown-escaped, as the cell has it).
func placeOf(r claimRow) string {
	i := strings.LastIndex(r.claim, " (")
	return strings.TrimSuffix(r.claim[i+2:], ")")
}

// verdictWord is a claims-table row's verdict as one phrase.
func verdictWord(r claimRow) string {
	switch {
	case r.judged == notJudged:
		return "not judged here"
	case r.verdict == "**holds**":
		return "holds"
	case r.verdict == "**fails**":
		return "fails"
	}
	return "not evaluated"
}

// summarize says what rows say: their common verdict, or how many rows
// have each ("holds 2, fails 1").
func summarize(rows []claimRow) string {
	count := map[string]int{}
	for _, r := range rows {
		count[verdictWord(r)]++
	}
	if len(count) == 1 {
		return verdictWord(rows[0])
	}
	var parts []string
	for _, w := range []string{"holds", "fails", "not evaluated", "not judged here"} {
		if count[w] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", w, count[w]))
		}
	}
	return strings.Join(parts, ", ")
}

// linkClaims rewrites the summary of every claimRef in text from rows, and
// names the references to places no row has.
func linkClaims(text string, rows []claimRow) (string, []string) {
	var errs []string
	out := claimRef.ReplaceAllStringFunc(text, func(ref string) string {
		m := claimRef.FindStringSubmatch(ref)
		var matched []claimRow
		for _, place := range strings.Split(m[2], ", ") {
			place, words, _ := strings.Cut(strings.Trim(place, "`"), " ~ ")
			n := 0
			for _, r := range rows {
				if placeOf(r) == escape.Markdown(place) && strings.Contains(r.claim, escape.Markdown(words)) {
					matched = append(matched, r)
					n++
				}
			}
			if n == 0 {
				errs = append(errs, fmt.Sprintf("docs/reproductions.md refers to claims at %q containing %q, which the claims table does not have (a script's lines or words changed?): %s", place, words, ref))
			}
		}
		if len(matched) == 0 {
			return ref
		}
		return "**" + summarize(matched) + "** (generated: " + m[2] + ")"
	})
	return out, errs
}

// handVerdicts checks docs/reproductions.md's claim tables written by hand
// (a last column "verdict", outside the Coverage table): each verdict is
// taken from the claims table (a claimRef) or says it is judged by hand
// ("by hand: " and why).
func handVerdicts(text string) []string {
	var errs []string
	inTable := false
	for i, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "|") {
			inTable = false
			continue
		}
		cells := splitRow(line)
		if strings.HasPrefix(cells[0], "---") {
			continue
		}
		if !inTable && strings.HasPrefix(line, "|") && cells[len(cells)-1] == "verdict" && cells[0] != "paper" {
			inTable = true
			continue
		}
		if !inTable {
			continue
		}
		v := cells[len(cells)-1]
		if ref := claimRef.FindString(v); ref != v && !strings.HasPrefix(v, "by hand: ") {
			errs = append(errs, fmt.Sprintf("docs/reproductions.md:%d: the verdict %q is neither taken from the claims table (**…** (generated: `script.lua:N`)) nor marked \"by hand: \" with why", i+1, v))
		}
	}
	return errs
}

// lineDiff lists the lines of want missing from got and the reverse.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var out []string
	for _, l := range w {
		if !slices.Contains(g, l) {
			out = append(out, "+ "+l)
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			out = append(out, "- "+l)
		}
	}
	return strings.Join(out, "\n")
}

// TestClaimRefs: a verdict referring to the claims table is rewritten from
// the rows at its places (all of them, or those whose claim has the given
// words), a reference to a place no row has is an error, and a hand claim
// table's verdict must be a reference or say "by hand: ".
func TestClaimRefs(t *testing.T) {
	rows := []claimRow{
		{script: "`s.lua`", claim: "(I) fast (s.lua:5 via line 9)", verdict: "**holds**", judged: judgedFromDir},
		{script: "`s.lua`", claim: "(II) fast (s.lua:5 via line 9)", verdict: "**fails**", judged: judgedFromDir},
		{script: "`s.lua`", claim: "sparse\\_est (s\\_x.lua:7)", verdict: "—", judged: notJudged},
	}
	for _, c := range []struct{ in, want, err string }{
		{"| a | b | **?** (generated: `s.lua:5 via line 9`) |", "| a | b | **holds 1, fails 1** (generated: `s.lua:5 via line 9`) |", ""},
		{"x **holds** (generated: `s.lua:5 via line 9 ~ (II)`) y", "x **fails** (generated: `s.lua:5 via line 9 ~ (II)`) y", ""},
		{"**?** (generated: `s_x.lua:7`, `s.lua:5 via line 9 ~ (I)`)", "**holds 1, not judged here 1** (generated: `s_x.lua:7`, `s.lua:5 via line 9 ~ (I)`)", ""},
		{"**holds** (generated: `s.lua:6`)", "**holds** (generated: `s.lua:6`)", `claims at "s.lua:6" containing ""`},
	} {
		got, errs := linkClaims(c.in, rows)
		if got != c.want {
			t.Errorf("linkClaims(%q) = %q, want %q", c.in, got, c.want)
		}
		if c.err == "" && len(errs) > 0 || c.err != "" && (len(errs) != 1 || !strings.Contains(errs[0], c.err)) {
			t.Errorf("linkClaims(%q): errors %q, want one containing %q", c.in, errs, c.err)
		}
	}
	doc := "| paper | figure | verdict |\n|---|---|---|\n| FCO | Fig. 3 | reproduced |\n\n" +
		"| paper's claim | measured | verdict |\n|---|---|---|\n" +
		"| fast | 1 | **holds** (generated: `s.lua:5 via line 9`) |\n| slow | 2 | by hand: no script declares it |\n| dense | 3 | holds |\n"
	errs := handVerdicts(doc)
	if len(errs) != 1 || !strings.HasPrefix(errs[0], `docs/reproductions.md:9: the verdict "holds" is neither`) {
		t.Errorf("handVerdicts: %q, want one error for line 9", errs)
	}
}
