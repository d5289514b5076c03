package policy

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
)

// Limits on one evaluation of one expression, so that a careless or hostile
// policy cannot hang kbook. They are variables for the tests.
var (
	// costLimit is CEL's runtime cost limit, the same as Kubernetes'
	// per-expression limit for ValidatingAdmissionPolicy.
	costLimit uint64 = 1_000_000
	// evalTimeout bounds the wall-clock time of one evaluation. An
	// evaluation that reaches the cost limit takes well under a second.
	evalTimeout = 5 * time.Second
)

// interruptCheckFrequency is how many comprehension iterations run between
// checks of the evaluation's deadline.
const interruptCheckFrequency = 100

// envs holds the CEL environments of object and chart rules.
var envs = sync.OnceValues(func() (map[string]*cel.Env, error) {
	// The libraries Kubernetes offers to CEL in admission policies, as far as
	// cel-go has them. Unlike Kubernetes, literals may mix types: without a
	// schema every field is dyn, and ['a', object.metadata.name] must work.
	base := []cel.EnvOption{
		cel.Variable("chart", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("values", cel.MapType(cel.StringType, cel.DynType)),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		ext.Lists(ext.ListsVersion(3)),
		ext.TwoVarComprehensions(),
	}
	chart, err := cel.NewEnv(base...)
	if err != nil {
		return nil, fmt.Errorf("CEL environment: %w", err)
	}
	object, err := chart.Extend(cel.Variable("object", cel.MapType(cel.StringType, cel.DynType)))
	if err != nil {
		return nil, fmt.Errorf("CEL environment: %w", err)
	}
	return map[string]*cel.Env{TargetObject: object, TargetChart: chart}, nil
})

// compile type-checks src for rules of target and plans its program. iss
// holds CEL's errors; err says what else is wrong, such as an output type
// that is neither want nor dyn.
func compile(target, src string, want *cel.Type) (cel.Program, *cel.Issues, error) {
	all, err := envs()
	if err != nil {
		return nil, nil, err
	}
	env := all[target]
	ast, iss := env.Compile(src)
	if iss.Err() != nil {
		return nil, iss, nil
	}
	if out := ast.OutputType(); !out.IsExactType(want) && !out.IsExactType(cel.DynType) {
		return nil, nil, fmt.Errorf("must return %s, not %s", want, out)
	}
	prg, err := env.Program(ast,
		cel.CostLimit(costLimit),
		cel.InterruptCheckFrequency(interruptCheckFrequency),
		cel.CustomDecorator(boundRange(costLimit)),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("plan: %w", err)
	}
	return prg, nil, nil
}

// boundRange makes lists.range(n) fail when n exceeds limit: the list is
// allocated before the cost tracker sees it, so lists.range(1e12) would
// exhaust memory instead of the cost limit.
func boundRange(limit uint64) interpreter.InterpretableDecorator {
	return func(i interpreter.Interpretable) (interpreter.Interpretable, error) {
		call, ok := i.(interpreter.InterpretableCall)
		if !ok || call.Function() != "lists.range" || len(call.Args()) != 1 {
			return i, nil
		}
		return interpreter.NewCall(call.ID(), call.Function(), call.OverloadID(), call.Args(), func(args ...ref.Val) ref.Val {
			n, ok := args[0].(types.Int)
			if !ok {
				return types.MaybeNoSuchOverloadErr(args[0])
			}
			if n > 0 && uint64(n) > limit {
				return types.NewErr("lists.range(%d) exceeds the cost limit of %d", n, limit)
			}
			l := make([]ref.Val, 0, max(n, 0))
			for j := types.Int(0); j < n; j++ {
				l = append(l, j)
			}
			return types.NewRefValList(types.DefaultTypeAdapter, l)
		}), nil
	}
}

// CheckObject evaluates the object rules that match obj by kind or
// group/Kind, in the order of the policy file. chart and values may be nil.
// A nil Policy has no rules.
func (p *Policy) CheckObject(obj map[string]any, chart, values map[string]any) []Violation {
	if p == nil {
		return nil
	}
	var vars map[string]any
	var out []Violation
	for _, r := range p.Rules {
		if r.Target != TargetObject || !r.matches(obj) {
			continue
		}
		if vars == nil {
			vars = map[string]any{
				"object": toCEL(obj),
				"chart":  chartVar(chart),
				"values": toCEL(values),
			}
		}
		if msg, ok := r.check(vars); !ok {
			out = append(out, Violation{Rule: r, Message: msg})
		}
	}
	return out
}

// CheckChart evaluates the chart rules once, in the order of the policy
// file. chart and values may be nil. A nil Policy has no rules.
func (p *Policy) CheckChart(chart, values map[string]any) []Violation {
	if p == nil {
		return nil
	}
	var vars map[string]any
	var out []Violation
	for _, r := range p.Rules {
		if r.Target != TargetChart {
			continue
		}
		if vars == nil {
			vars = map[string]any{"chart": chartVar(chart), "values": toCEL(values)}
		}
		if msg, ok := r.check(vars); !ok {
			out = append(out, Violation{Rule: r, Message: msg})
		}
	}
	return out
}

// check evaluates the rule; ok is true when it holds, else msg says why not.
func (r *Rule) check(vars map[string]any) (msg string, ok bool) {
	val, err := eval(r.expr, vars)
	if err != nil {
		return "evaluation error: " + err.Error(), false
	}
	b, isBool := val.(types.Bool)
	if !isBool {
		return fmt.Sprintf("evaluation error: expression returned %s, not bool", typeName(val)), false
	}
	if b {
		return "", true
	}
	return r.failure(vars), false
}

// failure is the message of a rule that does not hold: its evaluated
// messageExpression, else its message, else the expression.
func (r *Rule) failure(vars map[string]any) string {
	msg := r.Message
	if msg == "" {
		msg = "failed expression: " + strings.Join(strings.Fields(r.Expression), " ")
	}
	if r.message == nil {
		return msg
	}
	val, err := eval(r.message, vars)
	if err != nil {
		return fmt.Sprintf("%s (messageExpression: evaluation error: %v)", msg, err)
	}
	s, isString := val.(types.String)
	if !isString {
		return fmt.Sprintf("%s (messageExpression returned %s, not string)", msg, typeName(val))
	}
	if strings.TrimSpace(string(s)) == "" {
		return msg
	}
	return string(s)
}

func typeName(v ref.Val) string {
	if v == nil || v.Type() == nil {
		return "nothing"
	}
	return v.Type().TypeName()
}

// eval runs prg within the cost limit and the time limit. The evaluation
// runs in its own goroutine: CEL checks the deadline only between
// comprehension iterations, and a single call such as distinct() on a large
// list can run far longer; such an evaluation is abandoned at the deadline.
func eval(prg cel.Program, vars map[string]any) (ref.Val, error) {
	ctx, cancel := context.WithTimeout(context.Background(), evalTimeout)
	defer cancel()
	type result struct {
		val ref.Val
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- result{err: fmt.Errorf("panic: %v", v)}
			}
		}()
		val, _, err := prg.ContextEval(ctx, vars)
		done <- result{val, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
	}
	if ctx.Err() != nil && (res.err != nil || res.val == nil) {
		return nil, fmt.Errorf("timed out after %s", evalTimeout)
	}
	if res.err != nil {
		if strings.Contains(res.err.Error(), "cost limit exceeded") {
			return nil, fmt.Errorf("cost limit of %d exceeded: the expression does too much work", costLimit)
		}
		return nil, res.err
	}
	return res.val, nil
}

// chartVar is the chart variable: chart's entries with every documented
// key present, so that rules need no has() for them.
func chartVar(chart map[string]any) ref.Val {
	c := map[string]any{
		"name": "", "version": "", "appVersion": "", "description": "", "type": "",
		"annotations": map[string]any{}, "keywords": []any{},
	}
	for k, v := range chart {
		if v != nil {
			c[k] = v
		}
	}
	return toCEL(c)
}

// toCEL converts a decoded YAML or JSON map to a CEL value (nil is the empty
// map), normalising numbers on the way: whole numbers become int whatever
// decoder produced them (JSON decoders produce float64), other numbers
// double.
func toCEL(m map[string]any) ref.Val {
	if m == nil {
		m = map[string]any{}
	}
	return types.DefaultTypeAdapter.NativeToValue(normalize(m))
}

// maxExactInt is the largest integer a float64 holds exactly.
const maxExactInt = 1 << 53

func normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int64, time.Time, time.Duration:
		return x
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= maxExactInt {
			return int64(x)
		}
		return x
	case float32:
		return normalize(float64(x))
	case int:
		return int64(x)
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return normalize(f)
		}
		return x.String()
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	// Other maps, slices and number types, by reflection.
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map:
		out := make(map[string]any, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			out[fmt.Sprint(it.Key().Interface())] = normalize(it.Value().Interface())
		}
		return out
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
			return v // []byte: CEL bytes
		}
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = normalize(rv.Index(i).Interface())
		}
		return out
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := rv.Uint(); u <= math.MaxInt64 {
			return int64(u)
		}
		return rv.Uint()
	case reflect.Float32, reflect.Float64:
		return normalize(rv.Float())
	case reflect.String:
		return rv.String()
	case reflect.Bool:
		return rv.Bool()
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
		return normalize(rv.Elem().Interface())
	}
	return v
}
