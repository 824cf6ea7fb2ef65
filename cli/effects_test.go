package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/luaapi"
)

// TestSystemEffectsErrorsAtTheCall: bad system settings (availability,
// compression, privacy) in a script fail at the call, with file:line, the
// component and the key.
func TestSystemEffectsErrorsAtTheCall(t *testing.T) {
	head := `local data = fedlab.data.lasso{ variant = "custom", support = 2, dim = 8, clients = 4, samples = 10 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
local weighted = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, weighted = true }
`
	call := "fedlab.run{ rounds = 2, local_steps = 1, algorithm = fedlab.algo.%s{}, %s }\n"
	for _, c := range []struct{ algo, settings, want string }{
		{"fedavg", "availability = fedlab.availability.dropout{ p = 1 }", `script.lua:4: fedlab.run: availability "dropout": p must be in [0, 1)`},
		{"fedavg", "availability = fedlab.availability.dropout{ p = -0.5 }", `script.lua:4: availability "dropout": parameter "p" = -0.5 is below its minimum 0`},
		{"fedavg", "compress_up = fedlab.compressor.top_k{ k = 0 }", `script.lua:4: fedlab.run: compressor "top_k": give k ≥ 1`},
		{"fedavg", "privacy = fedlab.privacy.gaussian{ clip = 1, noise = -1 }", `script.lua:4: privacy "gaussian": parameter "noise" = -1 is below its minimum 0`},
		{"fedpd", "availability = fedlab.availability.dropout{ p = 0.2 }", `script.lua:4: fedlab.run: algorithm "fedpd" cannot take dropped clients`},
		{"fedprox", "compress_up = fedlab.compressor.sign{}", `script.lua:4: fedlab.run: algorithm "fedprox" cannot take uplink compression (it declares support for: dropped clients, unequal local steps, downlink compression)`},
		{"fedavg", "compress_down = fedlab.compressor.top_k{ k = 2, error_feedback = true }", `script.lua:4: fedlab.run: downlink compression always sends the change of the broadcast`},
		{"fedavg", "privacy = fedlab.privacy.gaussian{ clip = 1, noise = 1 }, problem = weighted", `script.lua:4: fedlab.run: client-level DP needs equal client weights`},
		{"fedavg", "compress_up = fedlab.availability.dropout{ p = 0.1 }", `script.lua:4: fedlab.run: key "compress_up": expected a compressor (from fedlab.compressor.*), got availability "dropout"`},
	} {
		settings := c.settings
		if !strings.Contains(settings, "problem =") {
			settings += ", problem = problem"
		}
		src := head + fmt.Sprintf(call, c.algo, settings)
		dir := t.TempDir()
		path := filepath.Join(dir, "script.lua")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := luaapi.RunFile(path, luaapi.Options{Out: filepath.Join(dir, "out"), Quiet: true, Stdout: io.Discard})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant %s", c.settings, err, c.want)
		}
	}
}
