package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fedlab/fedlab/internal/resumecheck"
)

// TestThePrintedResumeLineResumes runs fedlab (this test binary running
// Main, so os.Args[0] is its path) as a user types it and runs the line it
// prints through sh -c.
func TestThePrintedResumeLineResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 100,000 rounds twice (-short)")
	}
	bin, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	resumecheck.Check(t, t.TempDir(), []string{"FEDLAB_TEST_MAIN=1"}, bin)
}
