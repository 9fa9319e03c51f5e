package registry

import (
	"fmt"
	"sort"
	"strings"

	"github.com/leasedeck/leasedeck/registry/resources"
)

// Refusal codes of SPEC §5.2.
const (
	R1 = "R1" // intent.purpose absent or empty
	R2 = "R2" // narrowing leaves allow.tools empty
	R3 = "R3" // a declared allow path escapes the workspace
	R4 = "R4" // runtime_agent unknown for a native or delegated-cli agent
	R5 = "R5" // the parent's depth is already zero
	R6 = "R6" // the parent's remaining fan_out is zero
)

// RefusalMeaning explains each refusal code in a sentence, for reasons,
// the CLI and the cockpit.
var RefusalMeaning = map[string]string{
	R1: "intent.purpose is absent or empty",
	R2: "narrowing leaves allow.tools empty",
	R3: "a declared allow path escapes the workspace",
	R4: "runtime_agent is unknown for a native or delegated-cli agent",
	R5: "the parent's depth is already zero",
	R6: "the parent's remaining fan_out is zero",
}

// Clamp records one budget ceiling the grant set differently from the
// declaration. Declared is nil when the declaration left the field absent.
type Clamp struct {
	Field    BudgetField `json:"field"`
	Declared *float64    `json:"declared,omitempty"`
	Granted  float64     `json:"granted"`
}

// Diff is what narrowing took away and added, in the conformance vectors'
// `diff` shape: removed entries per allow list, entries the parent added
// to deny and approvals, and budget ceilings clamped.
type Diff struct {
	ToolsRemoved        []string
	ReadPathsRemoved    []string
	WritePathsRemoved   []string
	HostsRemoved        []string
	CommandsRemoved     []string
	DenyCommandsAdded   []string
	DenyPathsAdded      []string
	DenyHostsAdded      []string
	ApprovalsAdded      []string
	BudgetClamped       []Clamp
	ToolArgsNotGranted  bool
	UnknownAllowDropped []string
}

// Empty reports whether the grant equals the declaration.
func (d Diff) Empty() bool {
	return len(d.ToolsRemoved)+len(d.ReadPathsRemoved)+len(d.WritePathsRemoved)+len(d.HostsRemoved)+
		len(d.CommandsRemoved)+len(d.DenyCommandsAdded)+len(d.DenyPathsAdded)+len(d.DenyHostsAdded)+
		len(d.ApprovalsAdded)+len(d.BudgetClamped) == 0 && !d.ToolArgsNotGranted && len(d.UnknownAllowDropped) == 0
}

// JSON renders the diff in the vectors' shape (a JSON object tree).
func (d Diff) JSON() map[string]any {
	clamps := make([]any, 0, len(d.BudgetClamped))
	for _, c := range d.BudgetClamped {
		m := map[string]any{"field": string(c.Field), "granted": budgetValue(c.Field, c.Granted)}
		if c.Declared != nil {
			m["declared"] = budgetValue(c.Field, *c.Declared)
		}
		clamps = append(clamps, m)
	}
	return map[string]any{
		"tools_removed":       anyList(nonNil(d.ToolsRemoved)),
		"read_paths_removed":  anyList(nonNil(d.ReadPathsRemoved)),
		"write_paths_removed": anyList(nonNil(d.WritePathsRemoved)),
		"hosts_removed":       anyList(nonNil(d.HostsRemoved)),
		"commands_removed":    anyList(nonNil(d.CommandsRemoved)),
		"deny_commands_added": anyList(nonNil(d.DenyCommandsAdded)),
		"deny_paths_added":    anyList(nonNil(d.DenyPathsAdded)),
		"deny_hosts_added":    anyList(nonNil(d.DenyHostsAdded)),
		"approvals_added":     anyList(nonNil(d.ApprovalsAdded)),
		"budget_clamped":      clamps,
		"empty":               d.Empty(),
	}
}

// Summary is the one-line narrowing summary a `narrowed` record carries.
func (d Diff) Summary() string {
	var parts []string
	list := func(label string, s []string) {
		if len(s) > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", label, strings.Join(s, ", ")))
		}
	}
	list("tools removed:", d.ToolsRemoved)
	list("read_paths removed:", d.ReadPathsRemoved)
	list("write_paths removed:", d.WritePathsRemoved)
	list("hosts removed:", d.HostsRemoved)
	list("commands removed:", d.CommandsRemoved)
	list("deny commands added:", d.DenyCommandsAdded)
	list("deny paths added:", d.DenyPathsAdded)
	list("deny hosts added:", d.DenyHostsAdded)
	list("approvals added:", d.ApprovalsAdded)
	for _, c := range d.BudgetClamped {
		if c.Declared != nil {
			parts = append(parts, fmt.Sprintf("budget %s clamped %v → %v", c.Field, *c.Declared, c.Granted))
		} else {
			parts = append(parts, fmt.Sprintf("budget %s set to %v", c.Field, c.Granted))
		}
	}
	if d.ToolArgsNotGranted {
		parts = append(parts, "allow.tool_args not granted")
	}
	if len(d.UnknownAllowDropped) > 0 {
		parts = append(parts, "unknown allow members dropped: "+strings.Join(d.UnknownAllowDropped, ", "))
	}
	if len(parts) == 0 {
		return "granted as declared"
	}
	s := strings.Join(parts, "; ")
	if len(s) > 480 {
		s = s[:477] + "..."
	}
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Narrowed is the result of narrowing: either a grant and its diff, or
// the refusal codes (sorted R1…R6) that apply.
type Narrowed struct {
	Granted  *Manifest
	Diff     Diff
	Refusals []string
}

// Refused reports whether any refusal applies.
func (n Narrowed) Refused() bool { return len(n.Refusals) > 0 }

// Reason is the prose for a refusal: each code with its meaning.
func (n Narrowed) Reason() string {
	parts := make([]string, len(n.Refusals))
	for i, r := range n.Refusals {
		parts[i] = r + ": " + RefusalMeaning[r]
	}
	return strings.Join(parts, "; ")
}

// Narrow computes the granted manifest from declared and parent by the
// algebra of SPEC §5, exactly. parent is a granted manifest carrying its
// REMAINING budget (spend and live children already subtracted); for a
// root manifest it is the deployment's root policy.
//
// Every applicable refusal of §5.2 is reported, not just the first.
// Members the issuer does not understand are handled so the grant never
// carries authority nobody checked: unknown members of `allow` and
// `budget` are dropped (like `allow.tool_args`, §4.4), everything else
// the declaration carries (identity, intent, attestation, unknown
// top-level members) is preserved as declared.
func Narrow(declared, parent *Manifest) Narrowed {
	var out Narrowed
	var d Diff

	// §5.2 refusals that depend on the declaration and parent alone.
	refusals := map[string]bool{}
	if !declared.HasPurpose || strings.TrimSpace(declared.Purpose) == "" {
		refusals[R1] = true
	}
	for _, p := range append(append([]string{}, declared.Allow.ReadPaths...), declared.Allow.WritePaths...) {
		if PathEscapes(p) {
			refusals[R3] = true
		}
	}
	if declared.Agent.RuntimeAgent == "unknown" && (declared.Agent.Kind == "native" || declared.Agent.Kind == "delegated-cli") {
		refusals[R4] = true
	}
	if v, ok := parent.Budget.Get(Depth); ok && v <= 0 {
		refusals[R5] = true
	}
	if v, ok := parent.Budget.Get(FanOut); ok && v <= 0 {
		refusals[R6] = true
	}

	g := &Manifest{
		SchemaVersion: declared.SchemaVersion,
		Agent:         declared.Agent,
		Purpose:       declared.Purpose,
		HasPurpose:    declared.HasPurpose,
	}

	// Allow: exact-name intersection for tools and commands, containment
	// for paths and hosts. Declared order is kept.
	g.Allow.Tools, d.ToolsRemoved = keepIf(declared.Allow.Tools, func(t string) bool { return contains(parent.Allow.Tools, t) })
	g.Allow.Commands, d.CommandsRemoved = keepIf(declared.Allow.Commands, func(c string) bool { return contains(parent.Allow.Commands, c) })
	g.Allow.ReadPaths, d.ReadPathsRemoved = keepIf(declared.Allow.ReadPaths, func(p string) bool { return anyContains(parent.Allow.ReadPaths, p, PathContains) })
	g.Allow.WritePaths, d.WritePathsRemoved = keepIf(declared.Allow.WritePaths, func(p string) bool { return anyContains(parent.Allow.WritePaths, p, PathContains) })
	g.Allow.Hosts, d.HostsRemoved = keepIf(declared.Allow.Hosts, func(h string) bool { return anyContains(parent.Allow.Hosts, h, resources.HostPatternContains) })
	if len(g.Allow.Tools) == 0 {
		refusals[R2] = true
	}

	// Deny and approvals: union, declared entries first, then the
	// parent's entries not yet present.
	g.Deny.Commands, d.DenyCommandsAdded = union(declared.Deny.Commands, parent.Deny.Commands)
	g.Deny.Paths, d.DenyPathsAdded = union(declared.Deny.Paths, parent.Deny.Paths)
	g.Deny.Hosts, d.DenyHostsAdded = union(declared.Deny.Hosts, parent.Deny.Hosts)
	g.Approvals, d.ApprovalsAdded = union(declared.Approvals, parent.Approvals)

	// Budget.
	for _, f := range BudgetFields {
		dv, dok := declared.Budget.Get(f)
		pv, pok := parent.Budget.Get(f)
		var gv float64
		var gok bool
		switch {
		case f == Depth && pok:
			gv, gok = pv-1, true
			if gv < 0 {
				gv = 0
			}
			if dok && dv < gv {
				gv = dv
			}
		case dok && pok:
			gv, gok = min(dv, pv), true
		case dok:
			gv, gok = dv, true
		case pok:
			gv, gok = pv, true
		}
		if !gok {
			continue
		}
		g.Budget.Set(f, gv)
		if !dok {
			d.BudgetClamped = append(d.BudgetClamped, Clamp{Field: f, Granted: gv})
		} else if dv != gv {
			dcopy := dv
			d.BudgetClamped = append(d.BudgetClamped, Clamp{Field: f, Declared: &dcopy, Granted: gv})
		}
	}

	g.Raw = grantedRaw(declared, g, &d)

	out.Diff = d
	for _, code := range []string{R1, R2, R3, R4, R5, R6} {
		if refusals[code] {
			out.Refusals = append(out.Refusals, code)
		}
	}
	if len(out.Refusals) == 0 {
		out.Granted = g
	}
	return out
}

// grantedRaw builds the granted manifest's JSON object: the declaration's
// object with allow, deny, budget and approvals replaced by the grant.
func grantedRaw(declared, g *Manifest, d *Diff) map[string]any {
	raw := make(map[string]any, len(declared.Raw)+4)
	for k, v := range declared.Raw {
		raw[k] = v
	}
	if a, ok := declared.Raw["allow"].(map[string]any); ok {
		for k := range a {
			switch k {
			case "tools", "read_paths", "write_paths", "hosts", "commands":
			case "tool_args":
				d.ToolArgsNotGranted = true
			default:
				d.UnknownAllowDropped = append(d.UnknownAllowDropped, k)
			}
		}
		sort.Strings(d.UnknownAllowDropped)
	}
	raw["allow"] = map[string]any{
		"tools":       anyList(nonNil(g.Allow.Tools)),
		"read_paths":  anyList(nonNil(g.Allow.ReadPaths)),
		"write_paths": anyList(nonNil(g.Allow.WritePaths)),
		"hosts":       anyList(nonNil(g.Allow.Hosts)),
		"commands":    anyList(nonNil(g.Allow.Commands)),
	}
	deny := map[string]any{}
	if dd, ok := declared.Raw["deny"].(map[string]any); ok {
		for k, v := range dd {
			deny[k] = v // unknown deny members only ever restrict
		}
	}
	deny["commands"] = anyList(nonNil(g.Deny.Commands))
	deny["paths"] = anyList(nonNil(g.Deny.Paths))
	deny["hosts"] = anyList(nonNil(g.Deny.Hosts))
	raw["deny"] = deny
	raw["budget"] = g.Budget.JSON()
	raw["approvals"] = anyList(nonNil(g.Approvals))
	return raw
}

func keepIf(list []string, keep func(string) bool) (kept, removed []string) {
	kept = []string{}
	seen := make(map[string]bool, len(list))
	for _, e := range list {
		if seen[e] {
			continue
		}
		seen[e] = true
		if keep(e) {
			kept = append(kept, e)
		} else {
			removed = append(removed, e)
		}
	}
	return kept, removed
}

func union(declared, parent []string) (all, added []string) {
	all = make([]string, 0, len(declared)+len(parent))
	seen := make(map[string]bool, len(declared)+len(parent))
	for _, e := range declared {
		if !seen[e] {
			seen[e] = true
			all = append(all, e)
		}
	}
	for _, e := range parent {
		if !seen[e] {
			seen[e] = true
			all = append(all, e)
			added = append(added, e)
		}
	}
	return all, added
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func anyContains(parents []string, child string, rel func(parent, child string) bool) bool {
	for _, p := range parents {
		if rel(p, child) {
			return true
		}
	}
	return false
}

// PathEscapes reports whether an allow path has one of the five forms
// §4.4 refuses: a leading '/', a '..' segment, a leading '~', a
// drive-letter prefix, or any backslash.
func PathEscapes(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.Contains(p, `\`) {
		return true
	}
	if len(p) >= 2 && p[1] == ':' && ((p[0] >= 'a' && p[0] <= 'z') || (p[0] >= 'A' && p[0] <= 'Z')) {
		return true
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[{") }

// PathContains is the conservative containment of §5.1: `**` contains
// every workspace-relative path or glob; `dir/**` (dir free of glob
// characters) contains `dir` and anything whose leading segments are
// `dir/`; any other parent contains only the identical string.
func PathContains(parent, child string) bool {
	if PathEscapes(child) {
		return false
	}
	if parent == child {
		return true
	}
	if parent == "**" {
		return true
	}
	if dir, ok := strings.CutSuffix(parent, "/**"); ok && dir != "" && !hasGlob(dir) {
		return child == dir || strings.HasPrefix(child, dir+"/")
	}
	return false
}
