package main

import "github.com/fedlab/fedlab/luaapi"

// scriptArgs turns the --set key=value flags into fedlab.args (a later
// --set of the same key wins).
func scriptArgs(sets []string) (map[string]any, error) {
	if len(sets) == 0 {
		return nil, nil
	}
	args := map[string]any{}
	for _, s := range sets {
		k, v, err := luaapi.ParseSet(s)
		if err != nil {
			return nil, usageError{err.Error()}
		}
		args[k] = v
	}
	return args, nil
}
