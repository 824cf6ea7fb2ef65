package htmlreport

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/fedlab/fedlab/rundir"
)

// maxTitleKeys bounds the differing settings a title lists.
const maxTitleKeys = 3

// Titles gives each call of a run directory a title that tells it apart
// from the others: the call's name if the script gave one, otherwise
// "SCRIPT:LINE fedlab.compare"; when several calls share that (a call in
// a loop), the settings of their problem and engine that differ between
// them are appended ("data.partition=dominant"), or the call's number if
// none do.
func Titles(m *rundir.Manifest) []string {
	titles := make([]string, len(m.Calls))
	groups := map[string][]int{}
	for i, c := range m.Calls {
		titles[i] = fmt.Sprintf("%s %s", c.Where, c.Function)
		if c.Name != "" {
			titles[i] = c.Name
		}
		groups[titles[i]] = append(groups[titles[i]], i)
	}
	for base, calls := range groups {
		if len(calls) < 2 {
			continue
		}
		flat := make([]map[string]string, len(calls))
		var keys []string
		for k, i := range calls {
			flat[k] = callSettings(m, i)
			for key := range flat[k] {
				if !slices.Contains(keys, key) {
					keys = append(keys, key)
				}
			}
		}
		sort.Strings(keys)
		var differ []string
		for _, key := range keys {
			for k := range calls {
				if flat[k][key] != flat[0][key] {
					differ = append(differ, key)
					break
				}
			}
		}
		if len(differ) > maxTitleKeys {
			differ = differ[:maxTitleKeys]
		}
		for k, i := range calls {
			var parts []string
			for _, key := range differ {
				parts = append(parts, key+"="+flat[k][key])
			}
			if len(parts) == 0 {
				parts = []string{fmt.Sprintf("call %d", i+1)}
			}
			titles[i] = base + " (" + strings.Join(parts, ", ") + ")"
		}
	}
	return titles
}

// callSettings flattens the problem and engine settings of a call's first
// run into dotted keys ("data.partition", "settings.rounds").
func callSettings(m *rundir.Manifest, call int) map[string]string {
	out := map[string]string{}
	c := m.Calls[call]
	if len(c.Runs) == 0 {
		return out
	}
	e := m.Runs[c.Runs[0].Key]
	if e == nil {
		return out
	}
	b, err := json.Marshal(struct {
		Problem  any `json:"problem"`
		Settings any `json:"settings"`
	}{e.Problem, e.Settings})
	if err != nil {
		return out
	}
	var v map[string]any
	if json.Unmarshal(b, &v) != nil {
		return out
	}
	flatten("", v, out)
	// shorter names for the problem's parts: data.partition, not problem.data.params.partition
	short := map[string]string{}
	for k, val := range out {
		k = strings.TrimPrefix(k, "problem.")
		k = strings.Replace(k, ".params.", ".", 1)
		short[strings.TrimPrefix(k, "settings.")] = val
	}
	return short
}

// flatten writes the leaves of v under dotted keys.
func flatten(prefix string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			flatten(key, val, out)
		}
	default:
		b, _ := json.Marshal(x)
		out[prefix] = strings.Trim(string(b), `"`)
	}
}

// scriptName is the script's file name.
func scriptName(m *rundir.Manifest) string { return filepath.Base(m.Script.Path) }
