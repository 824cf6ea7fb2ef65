package cli

import (
	"fmt"
	"io"
	"slices"

	"github.com/fedlab/fedlab/experiment/claims"
	"github.com/fedlab/fedlab/luaapi"
	"github.com/fedlab/fedlab/rundir"
)

// exitClaims is the exit status of fedlab claims --strict when a claim
// fails or is not evaluated.
const exitClaims = 4

// claimsCommand is `fedlab claims DIR`, listed by init in cli.go.
var claimsCommand = command{"claims", "DIR", "judge again the claims of the script stored in a run directory, from its stored runs",
	"Runs the directory's copy of its script with its --set arguments, reading the stored runs and computing nothing, " +
		"and prints the claims table as fedlab run printed it. Exit status 4 with --strict when a claim fails or is not evaluated.",
	[]string{"fedlab claims runs/fco_lasso", "fedlab claims --strict runs/fco_lasso"},
	claimsCmd}

// claimsCmd is `fedlab claims [--strict] DIR`.
func claimsCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("claims")
	strict := fs.Bool("strict", false, fmt.Sprintf("exit with status %d when any claim fails or is not evaluated (for a paper's CI)", exitClaims))
	dirs, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) != 1 {
		return usageError{"claims takes one run directory"}
	}
	opts := luaapi.Options{Stderr: stderr, Width: terminalWidth(stdout), Jobs: 1}
	if m, ok, err := rundir.ReadManifest(dirs[0]); err == nil && ok && m.Invocation != nil && len(m.Invocation.Set) > 0 {
		var sets []string
		for k, v := range m.Invocation.Set {
			sets = append(sets, k+"="+v)
		}
		slices.Sort(sets)
		if opts.Args, opts.ArgText, err = scriptArgs(sets); err != nil {
			return err
		}
	}
	script, results, err := luaapi.Claims(dirs[0], opts)
	if len(results) > 0 {
		if werr := claims.Table(stdout, script, results, opts.Width); werr != nil {
			return werr
		}
	}
	if err != nil {
		return err
	}
	if len(results) == 0 {
		fmt.Fprintf(stdout, "%s declares no claims (fedlab.claim)\n", script)
		return nil
	}
	if _, fails, notEvaluated := claims.Counts(results); *strict && fails+notEvaluated > 0 {
		return exitError{exitClaims, fmt.Sprintf("of %d claims, %d fail and %d not evaluated (--strict: exit status %d)", len(results), fails, notEvaluated, exitClaims)}
	}
	return nil
}
