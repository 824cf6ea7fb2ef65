package rundir

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fedlab/fedlab/experiment/claims"
	"github.com/fedlab/fedlab/internal/atomicfile"
)

// ClaimsFile holds the verdicts of the script's claims (fedlab.claim), as
// the last session judged them.
const ClaimsFile = "claims.json"

// claimsFormat identifies the format of ClaimsFile.
const claimsFormat = "fedlab-claims/1"

// Claims is what the manifest records of the claims (its "claims" key)
// and what ClaimsFile holds: the verdicts, their counts, and the file's
// size and SHA-256 (in the manifest).
type Claims struct {
	Format       string          `json:"format,omitempty"` // in ClaimsFile
	File         string          `json:"file,omitempty"`   // in the manifest: ClaimsFile
	Size         int64           `json:"size,omitempty"`
	SHA256       string          `json:"sha256,omitempty"`
	Holds        int             `json:"holds"`
	Fails        int             `json:"fails"`
	NotEvaluated int             `json:"not_evaluated"`
	Results      []claims.Result `json:"claims"`
}

// SetClaims records the verdicts of the session's claims: ClaimsFile is
// written (removed when there are none) and the manifest written by
// Finish lists them. In memory only, nothing is written.
func (d *Dir) SetClaims(results []claims.Result) error {
	if d.path == "" {
		return nil
	}
	if len(results) == 0 {
		d.m.Claims = nil
		if err := os.Remove(filepath.Join(d.path, ClaimsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := d.begin(); err != nil {
		return err
	}
	c := Claims{Format: claimsFormat, Results: results}
	c.Holds, c.Fails, c.NotEvaluated = claims.Counts(results)
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if err := atomicfile.WriteBytes(filepath.Join(d.path, ClaimsFile), b); err != nil {
		return err
	}
	sum := sumOf(b)
	c.Format, c.File, c.Size, c.SHA256 = "", ClaimsFile, sum.Size, sum.SHA256
	d.mu.Lock()
	d.m.Claims = &c
	d.mu.Unlock()
	return nil
}
