package registry

import (
	"fmt"
	"math/rand"
	"testing"
	"testing/quick"

	"github.com/leasedeck/leasedeck/registry/resources"
	"github.com/leasedeck/leasedeck/schemas"
)

func TestPathContains(t *testing.T) {
	cases := []struct {
		parent, child string
		want          bool
	}{
		{"**", "src/a.ts", true},
		{"**", "src/**", true},
		{"src/**", "src", true},
		{"src/**", "src/a.ts", true},
		{"src/**", "src/sub/**", true},
		{"src/**", "src/*.ts", true},
		{"src/**", "srcx/a", false},
		{"src/**", "lib/**", false},
		{"src/*.ts", "src/a.ts", false},
		{"src/*.ts", "src/*.ts", true},
		{"a.txt", "a.txt", true},
		{"a.txt", "b.txt", false},
		{"**", "../x", false},
		{"src/**", "src/../x", false},
		{"*/**", "a/b", false},
	}
	for _, c := range cases {
		if got := PathContains(c.parent, c.child); got != c.want {
			t.Errorf("PathContains(%q, %q) = %v, want %v", c.parent, c.child, got, c.want)
		}
	}
}

func TestHostContains(t *testing.T) {
	cases := []struct {
		parent, child string
		want          bool
	}{
		{"*", "example.com", true},
		{"*.example.com", "api.example.com", true},
		{"*.example.com", "a.b.example.com", true},
		{"*.example.com", "*.api.example.com", true},
		{"*.example.com", "example.com", false},
		{"*.example.com", "badexample.com", false},
		{"api.example.com", "api.example.com", true},
		{"api.example.com", "*.example.com", false},
	}
	for _, c := range cases {
		if got := resources.HostPatternContains(c.parent, c.child); got != c.want {
			t.Errorf("HostPatternContains(%q, %q) = %v, want %v", c.parent, c.child, got, c.want)
		}
	}
}

func TestPathEscapes(t *testing.T) {
	for _, p := range []string{"/etc/passwd", "../x", "src/../x", "a/..", "~/x", "~", "C:/Users/x", `..\x`, `C:\x`} {
		if !PathEscapes(p) {
			t.Errorf("PathEscapes(%q) = false", p)
		}
	}
	for _, p := range []string{"src/**", "./x", "a..b", "%2e%2e/x", "**"} {
		if PathEscapes(p) {
			t.Errorf("PathEscapes(%q) = true", p)
		}
	}
}

// A whitespace-only purpose is R1, and every applicable refusal is listed.
func TestRefusalsAllReported(t *testing.T) {
	parent := mustManifest(t, genManifest(rand.New(rand.NewSource(1)), nil))
	parent.Budget.Set(Depth, 0)
	parent.Budget.Set(FanOut, 0)
	d := genManifest(rand.New(rand.NewSource(2)), nil)
	d["intent"] = map[string]any{"purpose": " \t "}
	d["agent"] = map[string]any{"name": "w", "kind": "native", "runtime_agent": "unknown"}
	d["allow"].(map[string]any)["tools"] = []any{}
	d["allow"].(map[string]any)["write_paths"] = []any{"src/**", "../x"}
	dm, _ := ParseManifest(d) // schema-invalid on purpose: narrowing must still refuse
	n := Narrow(dm, parent)
	if fmt.Sprint(n.Refusals) != "[R1 R2 R3 R4 R5 R6]" {
		t.Fatalf("refusals %v", n.Refusals)
	}
}

var (
	toolPool = []string{"Bash", "Read", "Write", "Edit", "Grep", "WebFetch", "mcp__gh__pr"}
	cmdPool  = []string{"git", "go", "make", "node", "rm", "curl"}
	pathPool = []string{"**", "src/**", "src", "src/a.go", "src/*.go", "docs/**", "docs/x.md", "lib/**", "src/sub/**", "README.md"}
	hostPool = []string{"*", "*.example.com", "api.example.com", "example.com", "a.b.example.com", "127.0.0.1", "*.b.example.com"}
)

func pick(r *rand.Rand, pool []string) []any {
	out := []any{}
	for _, s := range pool {
		if r.Intn(2) == 0 {
			out = append(out, s)
		}
	}
	return out
}

// genManifest makes a random schema-valid manifest; parent, when given,
// biases the draw towards its entries so that containment is exercised.
func genManifest(r *rand.Rand, parent map[string]any) map[string]any {
	budget := map[string]any{}
	for _, f := range BudgetFields {
		if r.Intn(2) == 0 {
			continue
		}
		switch f {
		case Depth:
			budget[string(f)] = int64(r.Intn(5))
		case FanOut:
			budget[string(f)] = int64(r.Intn(9))
		case CostUSD:
			budget[string(f)] = float64(r.Intn(1000)) / 100
		default:
			budget[string(f)] = int64(r.Intn(100000))
		}
	}
	return map[string]any{
		"schema_version": "1.2",
		"agent":          map[string]any{"name": "gen", "kind": "delegated-cli", "runtime_agent": "claude-code"},
		"intent":         map[string]any{"purpose": "generated"},
		"allow": map[string]any{
			"tools": pick(r, toolPool), "read_paths": pick(r, pathPool), "write_paths": pick(r, pathPool),
			"hosts": pick(r, hostPool), "commands": pick(r, cmdPool),
		},
		"deny":      map[string]any{"commands": pick(r, cmdPool[3:]), "paths": pick(r, pathPool[5:]), "hosts": pick(r, hostPool[3:])},
		"budget":    budget,
		"approvals": pick(r, []string{"Bash", "command:git", "host:example.com"}),
	}
}

func mustManifest(t testing.TB, v map[string]any) *Manifest {
	t.Helper()
	if errs, err := schemas.Validate(schemas.Manifest, v); err != nil || len(errs) > 0 {
		t.Fatalf("generated manifest invalid: %v %v", errs, err)
	}
	m, err := ParseManifest(v)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGrantContainedInParent is the invariant of §5: whatever is
// declared, a grant never exceeds its parent.
func TestGrantContainedInParent(t *testing.T) {
	prop := func(seed int64) bool {
		r := rand.New(rand.NewSource(seed))
		parent := mustManifest(t, genManifest(r, nil))
		declared := mustManifest(t, genManifest(r, nil))
		n := Narrow(declared, parent)
		if n.Refused() {
			return true
		}
		g := n.Granted
		if errs, _ := schemas.Validate(schemas.Manifest, g.Raw); len(errs) > 0 {
			t.Logf("grant invalid: %v", errs)
			return false
		}
		for _, tool := range g.Allow.Tools {
			if !contains(parent.Allow.Tools, tool) {
				return false
			}
		}
		for _, c := range g.Allow.Commands {
			if !contains(parent.Allow.Commands, c) {
				return false
			}
		}
		for _, p := range append(append([]string{}, g.Allow.ReadPaths...), g.Allow.WritePaths...) {
			if !anyContains(parent.Allow.ReadPaths, p, PathContains) && !anyContains(parent.Allow.WritePaths, p, PathContains) {
				return false
			}
		}
		for _, p := range g.Allow.WritePaths {
			if !anyContains(parent.Allow.WritePaths, p, PathContains) {
				return false
			}
		}
		for _, h := range g.Allow.Hosts {
			if !anyContains(parent.Allow.Hosts, h, resources.HostPatternContains) {
				return false
			}
		}
		superset := func(child, par []string) bool {
			for _, x := range par {
				if !contains(child, x) {
					return false
				}
			}
			return true
		}
		if !superset(g.Deny.Commands, parent.Deny.Commands) || !superset(g.Deny.Paths, parent.Deny.Paths) ||
			!superset(g.Deny.Hosts, parent.Deny.Hosts) || !superset(g.Approvals, parent.Approvals) {
			return false
		}
		for _, f := range BudgetFields {
			pv, pok := parent.Budget.Get(f)
			gv, gok := g.Budget.Get(f)
			if pok && (!gok || gv > pv) {
				return false
			}
		}
		if pd, ok := parent.Budget.Get(Depth); ok {
			if gd, _ := g.Budget.Get(Depth); gd >= pd {
				return false
			}
		}
		return true
	}
	if err := quick.Check(prop, &quick.Config{MaxCount: 1000}); err != nil {
		t.Fatal(err)
	}
}

// FuzzNarrow: narrowing any parseable pair never panics, and a grant
// always validates against the schema.
func FuzzNarrow(f *testing.F) {
	f.Add([]byte(`{"allow":{"tools":["a"]}}`), []byte(`{"allow":{"tools":["a"]},"intent":{"purpose":"p"}}`))
	f.Add([]byte(`{}`), []byte(`[]`))
	f.Fuzz(func(t *testing.T, parentJSON, declaredJSON []byte) {
		pv, err1 := schemas.ParseJSON(parentJSON)
		dv, err2 := schemas.ParseJSON(declaredJSON)
		if err1 != nil || err2 != nil {
			return
		}
		parent, err1 := ParseManifest(pv)
		declared, err2 := ParseManifest(dv)
		if err1 != nil || err2 != nil {
			return
		}
		n := Narrow(declared, parent)
		if !n.Refused() {
			if _, err := schemas.Canonical(n.Granted.Raw); err != nil {
				return // e.g. a non-finite or huge number the caller never validated
			}
			for _, tool := range n.Granted.Allow.Tools {
				if !contains(parent.Allow.Tools, tool) {
					t.Fatalf("tool %q granted beyond parent", tool)
				}
			}
		}
	})
}
