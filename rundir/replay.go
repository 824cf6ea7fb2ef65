package rundir

import (
	"fmt"
)

// openReplay prepares a replay of the directory DirOptions.Replay: its
// manifest is read (to verify the stored results and optima against it)
// and nothing is ever written or locked. Runs it does not hold are not
// computed: they get placeholder results, which claims report as not
// evaluated.
func (d *Dir) openReplay(path string) error {
	dir := d.opts.Replay
	switch {
	case path != "":
		return fmt.Errorf("a replay of %s writes no run directory, got %s", dir, path)
	case d.opts.DryRun:
		return fmt.Errorf("a replay of %s reads stored runs: not a dry run", dir)
	}
	if err := CheckLinks(dir); err != nil {
		return err
	}
	m, ok, err := ReadManifest(dir)
	switch {
	case err != nil:
		return err
	case !ok:
		return fmt.Errorf("%s is not a run directory (no %s)", dir, ManifestFile)
	}
	d.previous = m.Runs
	d.m.Optima = m.Optima
	return nil
}

// readPath is the directory stored runs and optima are read from: the
// session's, or the one it replays.
func (d *Dir) readPath() string {
	if d.path == "" {
		return d.opts.Replay
	}
	return d.path
}

// rerun says what happens to a stored run that cannot be used.
func (d *Dir) rerun() string {
	if d.path == "" && d.opts.Replay != "" {
		return "not used (a replay computes nothing)"
	}
	return "running it again"
}
