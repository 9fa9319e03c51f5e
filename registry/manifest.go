// Package registry is leasedeck's issuer: it narrows declared manifests
// against their parent's grant (SPEC §5), refuses what §5.2 refuses, signs
// leases (§7), checks them (§6), and — in the service half — folds lease
// state from the journal and gates tool calls.
//
// The issuing core in this file and its siblings is pure: no I/O, no
// clock except the one it is given.
package registry

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Manifest is a typed view of an Agent Lease Manifest that keeps the raw
// object it came from, so that fields this version does not know (from a
// newer minor writer) survive every round trip and every hash.
type Manifest struct {
	Raw map[string]any

	SchemaVersion string
	Agent         Agent
	Purpose       string
	HasPurpose    bool
	Allow         Allow
	Deny          Deny
	Budget        Budget
	Approvals     []string
}

// Agent is the identity triple of §4.2.
type Agent struct {
	Name, Kind, RuntimeAgent string
}

// Allow holds the five allow lists of §4.4.
type Allow struct {
	Tools, ReadPaths, WritePaths, Hosts, Commands []string
}

// Deny holds the three deny lists of §4.4.
type Deny struct {
	Commands, Paths, Hosts []string
}

// BudgetField names one ceiling of §4.5, in the schema's order, which is
// also the order the narrowing diff lists clamps in.
type BudgetField string

// The budget fields, in schema order.
const (
	Steps       BudgetField = "steps"
	WallClockMs BudgetField = "wall_clock_ms"
	Tokens      BudgetField = "tokens"
	CostUSD     BudgetField = "cost_usd"
	Depth       BudgetField = "depth"
	FanOut      BudgetField = "fan_out"
)

// BudgetFields lists every budget field in schema order.
var BudgetFields = []BudgetField{Steps, WallClockMs, Tokens, CostUSD, Depth, FanOut}

// Budget is a set of optional ceilings. Absent means "the parent's
// remaining ceiling applies" (§4.5), never unbounded below the root.
// Every value is kept as float64: integer fields are bounded by 2^53−1
// by the schema, so they are exact in a double; cost_usd is a real number.
type Budget struct {
	vals [6]float64
	set  [6]bool
}

func fieldIndex(f BudgetField) int {
	for i, g := range BudgetFields {
		if g == f {
			return i
		}
	}
	panic("registry: unknown budget field " + string(f))
}

// Get returns the ceiling and whether it is set.
func (b Budget) Get(f BudgetField) (float64, bool) {
	i := fieldIndex(f)
	return b.vals[i], b.set[i]
}

// Set sets a ceiling.
func (b *Budget) Set(f BudgetField, v float64) {
	i := fieldIndex(f)
	b.vals[i], b.set[i] = v, true
}

// Unset removes a ceiling.
func (b *Budget) Unset(f BudgetField) {
	i := fieldIndex(f)
	b.vals[i], b.set[i] = 0, false
}

// JSON renders the budget as a JSON object tree: integers as int64 so
// they canonicalise exactly, cost_usd as float64.
func (b Budget) JSON() map[string]any {
	m := make(map[string]any, 6)
	for i, f := range BudgetFields {
		if !b.set[i] {
			continue
		}
		m[string(f)] = budgetValue(f, b.vals[i])
	}
	return m
}

func budgetValue(f BudgetField, v float64) any {
	if f == CostUSD {
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int64(v)
		}
		return v
	}
	return int64(v)
}

// ParseManifest builds the typed view of v without validating it: the
// caller validates against the schema first (SPEC §9 step 1). Fields of
// the wrong type are treated as absent, so narrowing an unvalidated
// manifest refuses rather than crashes.
func ParseManifest(v any) (*Manifest, error) {
	raw, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("a manifest must be a JSON object")
	}
	m := &Manifest{Raw: raw}
	m.SchemaVersion, _ = raw["schema_version"].(string)
	if a, ok := raw["agent"].(map[string]any); ok {
		m.Agent.Name, _ = a["name"].(string)
		m.Agent.Kind, _ = a["kind"].(string)
		m.Agent.RuntimeAgent, _ = a["runtime_agent"].(string)
	}
	if in, ok := raw["intent"].(map[string]any); ok {
		m.Purpose, m.HasPurpose = in["purpose"].(string)
	}
	if a, ok := raw["allow"].(map[string]any); ok {
		m.Allow = Allow{
			Tools:      stringList(a["tools"]),
			ReadPaths:  stringList(a["read_paths"]),
			WritePaths: stringList(a["write_paths"]),
			Hosts:      stringList(a["hosts"]),
			Commands:   stringList(a["commands"]),
		}
	}
	if d, ok := raw["deny"].(map[string]any); ok {
		m.Deny = Deny{
			Commands: stringList(d["commands"]),
			Paths:    stringList(d["paths"]),
			Hosts:    stringList(d["hosts"]),
		}
	}
	if b, ok := raw["budget"].(map[string]any); ok {
		for _, f := range BudgetFields {
			if n, ok := number(b[string(f)]); ok {
				m.Budget.Set(f, n)
			}
		}
	}
	m.Approvals = stringList(raw["approvals"])
	return m, nil
}

func stringList(v any) []string {
	arr, ok := v.([]any)
	if !ok {
		if s, ok := v.([]string); ok {
			return s
		}
		return nil
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		return f, err == nil
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

func anyList(s []string) []any {
	out := make([]any, len(s))
	for i, e := range s {
		out[i] = e
	}
	return out
}
