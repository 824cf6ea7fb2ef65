package luaapi

import "testing"

// TestValuesAUserTypesAreNamed: an infinite init_scale is refused at the
// call by its key (it was "internal error: identity cannot be encoded:
// json: unsupported value: +Inf"), and a call name that is not valid
// UTF-8 is refused as such a label is (it was stored with U+FFFD).
func TestValuesAUserTypesAreNamed(t *testing.T) {
	run := "local r = fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{}, rounds = 2, local_steps = 1, metrics = { \"test_objective\" }, "
	for _, c := range []struct{ src, want string }{
		{run + "init = \"normal\", init_scale = 1/0 }\n", `script.lua:3: fedlab.run: key "init_scale": expected a finite number ≥ 0, got +Inf`},
		{run + "name = \"a\\255b\" }\n", `script.lua:3: fedlab.run: key "name": name "a\xffb" is not valid UTF-8 (byte 0xff at offset 1): labels and names are stored as UTF-8 text; write them in UTF-8`},
		{"local r = fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{ label = \"a\\255b\" }, rounds = 2, local_steps = 1 }\n", `script.lua:3: algorithm "test_gd": label "a\xffb" is not valid UTF-8 (byte 0xff at offset 1): labels and names are stored as UTF-8 text; write them in UTF-8`},
	} {
		_, err := script(t, problemSrc+c.src, Options{})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v\nwant %s", c.src, err, c.want)
		}
	}
}
