package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/luaapi"
	"github.com/fedlab/fedlab/rundir"
)

// exitError ends the command with a status other than 1 or 2; its
// message is printed as "fedlab: MESSAGE".
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// signalled is the cause of a run stopped by a signal.
type signalled struct{ sig os.Signal }

func (s signalled) Error() string {
	if s.sig == syscall.SIGTERM {
		return "terminated (SIGTERM)"
	}
	return "interrupted (SIGINT)"
}

// timedOut is the cause of a run stopped by --timeout.
type timedOut struct{ limit time.Duration }

func (t timedOut) Error() string { return fmt.Sprintf("time limit reached (--timeout %s)", t.limit) }

// guarded returns the context of a `fedlab run`: it ends on the first
// SIGINT or SIGTERM (a second one ends the process at once, the default
// behaviour) and after timeout (if > 0). release stops listening.
func guarded(timeout time.Duration) (ctx context.Context, release func()) {
	base, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(signalled{s})
		case <-base.Done():
		}
	}()
	ctx = base
	release = func() {
		signal.Stop(sigs)
		cancel(nil)
	}
	if timeout > 0 {
		var cancelTimeout context.CancelFunc
		ctx, cancelTimeout = context.WithTimeoutCause(ctx, timeout, timedOut{timeout})
		parentRelease := release
		release = func() { cancelTimeout(); parentRelease() }
	}
	return ctx, release
}

// interrupted reports a run stopped by a signal, --timeout or the memory
// ceiling: where it stopped, what the directory keeps and how to resume.
// The exit status is 130 for SIGINT, 143 for SIGTERM, 124 for --timeout
// and 1 for the memory ceiling.
func interrupted(stderr io.Writer, intr *experiment.Interrupted, sum rundir.Summary, resume string) error {
	code := 1
	var sig signalled
	var to timedOut
	switch {
	case errors.As(intr.Cause, &sig) && sig.sig == syscall.SIGTERM:
		code = 143
	case errors.As(intr.Cause, &sig):
		code = 130
	case errors.As(intr.Cause, &to):
		code = 124
	}
	fmt.Fprintf(stderr, "fedlab: %s\n", intr)
	if sum.Dir == "" {
		return exitError{code, "nothing was written"}
	}
	if sum.Runs == 0 { // stopped before the script's first call planned a run
		stored, _ := os.ReadDir(filepath.Join(sum.Dir, rundir.ResultsDir))
		fmt.Fprintf(stderr, "fedlab: the script stopped before its first call; the %d stored results in %s are kept (manifest status %q)\n",
			len(stored), sum.Dir, rundir.StatusInterrupted)
	} else {
		saved := ""
		if sum.Checkpointed > 0 {
			saved = fmt.Sprintf(" (%d saved a checkpoint to continue from)", sum.Checkpointed)
		}
		fmt.Fprintf(stderr, "fedlab: kept %d completed runs in %s (manifest status %q); %d planned runs did not complete%s\n",
			sum.Runs-sum.Pending, sum.Dir, rundir.StatusInterrupted, sum.Pending, saved)
	}
	return exitError{code, "resume with: " + resume}
}

// maxWorkersPerCPU caps --jobs and --workers: more goroutines than this
// many per CPU cannot run at once, and results do not depend on either.
const maxWorkersPerCPU = 8

// capWorkers lowers --jobs and --workers to what can run, with a note.
func capWorkers(opts *luaapi.Options, stderr io.Writer) {
	limit := maxWorkersPerCPU * runtime.NumCPU()
	for _, f := range []struct {
		name string
		n    *int
	}{{"--jobs", &opts.Jobs}, {"--workers", &opts.Workers}} {
		if *f.n > limit {
			fmt.Fprintf(stderr, "fedlab: %s %d capped at %d (%d per CPU; results do not depend on it)\n", f.name, *f.n, limit, maxWorkersPerCPU)
			*f.n = limit
		}
	}
}
