package experiment

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fedlab/fedlab/schedules/sched"
)

// Setting is one swept value. Key names an algorithm parameter ("eta_c")
// or a parameter of a part of the problem ("reg.lambda", "data.seed").
// Value is a number, a boolean or a string (other values are kept as their
// description; see NewSetting).
type Setting struct {
	Key   string
	Value any
}

// NewSetting returns the setting of key to v. Numbers (and constant
// schedules), booleans and strings are kept; other values are replaced by
// their String method or their Go type and fields, which is what tables
// and files show.
func NewSetting(key string, v any) Setting {
	switch x := v.(type) {
	case float64, bool, string:
	case int:
		v = float64(x)
	case sched.Constant:
		v = float64(x)
	case fmt.Stringer:
		v = x.String()
	default:
		v = fmt.Sprintf("%T%+v", v, v)
	}
	return Setting{Key: key, Value: v}
}

// Config is a sweep configuration: settings sorted by key, keys distinct.
type Config []Setting

// NewConfig sorts the settings by key.
func NewConfig(settings ...Setting) Config {
	c := Config(slices.Clone(settings))
	slices.SortFunc(c, func(a, b Setting) int { return strings.Compare(a.Key, b.Key) })
	return c
}

// Get returns the value of key.
func (c Config) Get(key string) (any, bool) {
	for _, s := range c {
		if s.Key == key {
			return s.Value, true
		}
	}
	return nil, false
}

// String renders the configuration as "eta_c=0.001 eta_s=10".
func (c Config) String() string {
	parts := make([]string, len(c))
	for i, s := range c {
		parts[i] = s.Key + "=" + FormatValue(s.Value)
	}
	return strings.Join(parts, " ")
}

// MarshalJSON encodes the configuration as an object.
func (c Config) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(c))
	for _, s := range c {
		m[s.Key] = Canonical(s.Value)
	}
	return json.Marshal(m)
}

// UnmarshalJSON decodes an object written by MarshalJSON.
func (c *Config) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	out := make([]Setting, 0, len(m))
	for k, v := range m {
		out = append(out, Setting{Key: k, Value: v})
	}
	*c = NewConfig(out...)
	return nil
}

// FormatValue renders a setting's value: numbers in their shortest exact
// form ("0.001", "1e-05"), other values as text.
func FormatValue(v any) string {
	if x, ok := v.(float64); ok {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// Grid returns every combination of one element per axis, in order, the
// last axis varying fastest; no axes give no combinations.
func Grid[T any](axes [][]T) [][]T {
	if len(axes) == 0 {
		return nil
	}
	out := [][]T{nil}
	for _, a := range axes {
		next := make([][]T, 0, len(out)*len(a))
		for _, c := range out {
			for _, v := range a {
				next = append(next, append(slices.Clone(c), v))
			}
		}
		out = next
	}
	return out
}
