package main

import (
	"strings"

	"github.com/fedlab/fedlab/luaapi"
)

// scriptArgs turns the --set key=value flags into fedlab.args, and the
// values as typed (a later --set of the same key wins).
func scriptArgs(sets []string) (args map[string]any, text map[string]string, err error) {
	if len(sets) == 0 {
		return nil, nil, nil
	}
	args, text = map[string]any{}, map[string]string{}
	for _, s := range sets {
		k, v, err := luaapi.ParseSet(s)
		if err != nil {
			return nil, nil, usageError{err.Error()}
		}
		args[k] = v
		_, text[k], _ = strings.Cut(s, "=")
	}
	return args, text, nil
}
