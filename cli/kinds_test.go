package cli

import (
	"strings"
	"testing"

	"github.com/fedlab/fedlab/luaapi"
	"github.com/fedlab/fedlab/registry"
)

// The help of fedlab list lists every registered kind under its Go and its
// Lua name, and `fedlab list KIND` accepts both.
func TestHelpListsEveryKind(t *testing.T) {
	t.Setenv("COLUMNS", "1000") // one line each
	_, help, _ := runCLI("help", "list")
	kinds, lua, _ := strings.Cut(help[strings.Index(help, "kinds: "):], "(or the Lua names ")
	lua, _, _ = strings.Cut(lua, ")")
	for _, k := range registry.Kinds {
		if !strings.Contains(kinds, string(k)) {
			t.Errorf("the help does not list the kind %q", k)
		}
		ns := luaapi.Namespace(k)
		if !strings.Contains(", "+lua+",", " "+ns+",") {
			t.Errorf("the help does not list the Lua name %q of kind %q", ns, k)
		}
		for _, name := range []string{string(k), ns} {
			if code, _, stderr := runCLI("list", name); code != 0 {
				t.Errorf("fedlab list %s: exit %d, %s", name, code, stderr)
			}
		}
	}
}
