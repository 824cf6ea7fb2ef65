package registry

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/fedlab/fedlab/schedules/sched"
)

// Define registers a component of kind k whose parameters are the tagged
// fields of the struct P: each parameter is declared once, as a field, and
// the factory receives a P holding the validated values (no lookups by
// name). defaults holds the default of every optional parameter. If P is
// a Checker, its Check runs at validation; if P is a Sizer, Spec.Size
// reports its Memory.
//
// A field declares a parameter with the tags
//
//	param:"name"            or param:"name,required" (no default)
//	param:"name,path"       an input path (Param.Path), or param:"name,required,path"
//	doc:"one line"
//	min:"0" max:"1"         inclusive bounds of numbers and schedules
//	choices:"a|b|c"         allowed values of a string
//	kind:"topology"         the kind of a component field
//	default:"complete"      a component field's default: a registered name
//
// The Go type of the field gives the parameter type: float64 (Float), int
// (Int), bool (Bool), string or a named string type (String), []float64
// (Floats), sched.Schedule (Sched), and any other type with a kind tag
// (Component; the built component must be assignable to the field).
// Embedded structs contribute their fields, so families share declarations.
// A schedule default must be a sched.Constant. Declaration errors panic at
// start-up, like Register's, and so is a params type given to Define
// twice: P names its component in a typed plan (Typed), so each component
// with parameters has its own params type (struct{} declares none and
// may be shared: plan.Component{Kind, Name} names such a component).
func Define[T, P any](k Kind, name, doc string, defaults P, build func(P) (T, error)) {
	DefineWith(k, name, doc, defaults, func(_ BuildContext, p P) (T, error) { return build(p) })
}

// DefineWith is Define for a factory that needs the context of the plan
// that builds it (BuildContext: the memory ceiling a file reader stops at,
// the deadline, the notice channel).
func DefineWith[T, P any](k Kind, name, doc string, defaults P, build func(BuildContext, P) (T, error)) {
	pt := reflect.TypeFor[P]()
	if pt.Kind() != reflect.Struct {
		panic(fmt.Sprintf("registry: %s %q: parameters must be a struct, not %v", k, name, pt))
	}
	typed := pt != reflect.TypeFor[struct{}]()
	if typed {
		paramsFree(pt, k, name)
	}
	var fields []typedField
	params, err := collect(pt, reflect.ValueOf(defaults), nil, &fields)
	if err != nil {
		panic(fmt.Sprintf("registry: %s %q: %v", k, name, err))
	}
	spec := Spec{Name: name, Doc: doc, Params: params}
	if _, ok := any(defaults).(Checker); ok {
		spec.crossCheck = func(a Args) error {
			var p P
			if err := a.fill(reflect.ValueOf(&p).Elem(), fields); err != nil {
				return err
			}
			return any(p).(Checker).Check()
		}
	}
	if _, ok := any(defaults).(Sizer); ok {
		spec.size = func(a Args) (uint64, string, error) {
			var p P
			if err := a.fill(reflect.ValueOf(&p).Elem(), fields); err != nil {
				return 0, "", err
			}
			bytes, what := any(p).(Sizer).Memory()
			return bytes, what, nil
		}
	}
	Register[T](k, spec, func(a Args) (T, error) {
		var p P
		if err := a.fill(reflect.ValueOf(&p).Elem(), fields); err != nil {
			var zero T
			return zero, err
		}
		return build(a.build, p)
	})
	if typed {
		declareParams(pt, k, name, reflect.ValueOf(defaults), fields)
	}
}

// Checker is implemented by params structs whose parameters constrain each
// other (a FedMiD server optimizer must take scalar steps, w > 0 when
// power > 0, ...). Check runs in Spec.Validate after every parameter is
// valid, so such mistakes surface where the component is written (the Lua
// call), not when a run starts. Only the params struct's own method counts.
type Checker interface {
	Check() error
}

// Sizer is implemented by params structs of components whose memory grows
// with their parameters (a generated dataset): Memory returns the bytes the
// built component will hold and names the values that determine them
// ("clients = 64, samples = 128, test_samples = 32, dim = 1024"). Spec.Size
// reports it, so that a plan refuses a component over the memory ceiling
// before building it (plan.Limits), whether a script or a Go program
// asked for it. Only the params struct's own method counts.
type Sizer interface {
	Memory() (bytes uint64, what string)
}

// typedField binds a parameter to a field of the params struct.
type typedField struct {
	name  string
	index []int
}

var schedType = reflect.TypeFor[sched.Schedule]()

// collect declares the parameters of the struct type t, whose defaults are
// the fields of v; prefix is the index path of t inside the params struct.
func collect(t reflect.Type, v reflect.Value, prefix []int, fields *[]typedField) ([]Param, error) {
	var out []Param
	for i := range t.NumField() {
		f := t.Field(i)
		index := append(append([]int(nil), prefix...), i)
		tag, tagged := f.Tag.Lookup("param")
		if f.Anonymous && !tagged && f.Type.Kind() == reflect.Struct {
			ps, err := collect(f.Type, v.Field(i), index, fields)
			if err != nil {
				return nil, err
			}
			out = append(out, ps...)
			continue
		}
		if !tagged {
			return nil, fmt.Errorf("field %s has no param tag", f.Name)
		}
		name, opts, _ := strings.Cut(tag, ",")
		p := Param{Name: name, Doc: f.Tag.Get("doc"), Kind: Kind(f.Tag.Get("kind"))}
		required := false
		for _, opt := range strings.Split(opts, ",") {
			switch opt {
			case "":
			case "required":
				required = true
			case "path":
				p.Path = true
			default:
				return nil, fmt.Errorf("parameter %q: unknown option %q", name, opt)
			}
		}
		for _, b := range []struct {
			tag string
			dst **float64
		}{{"min", &p.Min}, {"max", &p.Max}} {
			if s, ok := f.Tag.Lookup(b.tag); ok {
				x, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return nil, fmt.Errorf("parameter %q: %s tag %q is not a number", name, b.tag, s)
				}
				*b.dst = Bound(x)
			}
		}
		if s, ok := f.Tag.Lookup("choices"); ok {
			p.Choices = strings.Split(s, "|")
		}
		var err error
		p.Type, err = paramType(f.Type, p.Kind != "")
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %w", name, err)
		}
		if p.Path && p.Type != String {
			return nil, fmt.Errorf("parameter %q: the path option needs a string field, not %v", name, f.Type)
		}
		switch {
		case required:
		case p.Type == Component:
			if d := f.Tag.Get("default"); d != "" {
				p.Default = d
			}
		default:
			p.Default, err = defaultOf(p.Type, v.Field(i))
			if err != nil {
				return nil, fmt.Errorf("parameter %q: %w", name, err)
			}
		}
		out = append(out, p)
		*fields = append(*fields, typedField{name: name, index: index})
	}
	return out, nil
}

// paramType maps a field type to a parameter type.
func paramType(t reflect.Type, component bool) (Type, error) {
	switch {
	case component:
		return Component, nil
	case t == schedType:
		return Sched, nil
	case t.Kind() == reflect.Float64:
		return Float, nil
	case t.Kind() == reflect.Int:
		return Int, nil
	case t.Kind() == reflect.Bool:
		return Bool, nil
	case t.Kind() == reflect.String:
		return String, nil
	case t == reflect.TypeFor[[]float64]():
		return Floats, nil
	}
	return 0, fmt.Errorf("field type %v has no parameter type (a component needs a kind tag)", t)
}

// defaultOf converts a default held in a field to a Param.Default.
func defaultOf(t Type, v reflect.Value) (any, error) {
	switch t {
	case Float:
		return v.Float(), nil
	case Int:
		return int(v.Int()), nil
	case Bool:
		return v.Bool(), nil
	case String:
		return v.String(), nil
	case Floats:
		return append([]float64{}, v.Interface().([]float64)...), nil
	case Sched:
		c, ok := v.Interface().(sched.Constant)
		if !ok {
			return nil, fmt.Errorf("a schedule default must be a sched.Constant, not %v", v.Interface())
		}
		return float64(c), nil
	}
	return nil, fmt.Errorf("no default for a %s", t)
}

// fill stores the validated values in the fields of the params struct p.
func (a Args) fill(p reflect.Value, fields []typedField) error {
	for _, tf := range fields {
		f := p.FieldByIndex(tf.index)
		pd, _ := a.spec.Param(tf.name)
		v := a.vals[tf.name]
		if pd.Type == Component {
			c, err := a.Component(tf.name)
			if err != nil {
				return err
			}
			v = c
		}
		rv := reflect.ValueOf(v)
		switch {
		case pd.Type == String:
			f.SetString(rv.String())
		case rv.Type().AssignableTo(f.Type()):
			f.Set(rv)
		default:
			return fmt.Errorf("parameter %q: %s %v does not fit %v", tf.name, pd.Kind, v, f.Type())
		}
	}
	return nil
}
