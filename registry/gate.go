package registry

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/registry/resources"
)

// Verdict is the gate's answer for one tool call.
type Verdict string

// Verdicts. Allow lets the call run; Deny refuses this call (the lease
// can go on); Block refuses because the lease cannot act at all any more
// (revoked, expired, budget spent); Ask means a human must decide first.
const (
	VerdictAllow Verdict = "allow"
	VerdictDeny  Verdict = "deny"
	VerdictBlock Verdict = "block"
	VerdictAsk   Verdict = "ask"
)

// ToolCall is one call presented to the gate, in the gate's tool
// vocabulary (Claude Code's; adapters translate other clients' tools).
type ToolCall struct {
	Tool  string
	Input map[string]any
}

// GateResult is a decision with its reason, the approval names that
// matched (for Ask), and the resources the call was found to touch.
type GateResult struct {
	Verdict   Verdict
	Reason    string
	Approvals []string // approval names that matched, for Ask
	Use       resources.Use
}

// Evaluate runs the gate of DESIGN.md for one call under one lease,
// against the folded state, without changing anything: live lease and
// chain → tool allowed → resources derived (what cannot be parsed is
// refused) → any resource matching a deny entry refuses → paths inside
// the workspace and inside allowed globs → hosts → executables → budget
// left on the chain → approvals. covered reports whether a remembered
// grant covers a set of approval names for this lease.
func Evaluate(s *State, workspace, leaseID string, call ToolCall, now time.Time, covered func(leaseID string, names []string) bool) GateResult {
	use, err := resources.FromToolCall(workspace, call.Tool, call.Input)
	return EvaluateUse(s, leaseID, call, use, err, now, covered)
}

// EvaluateUse is Evaluate with the call's resources already derived
// (resources.FromToolCall and its error), so that the costly part of a
// decision can run before the registry's lock is taken.
func EvaluateUse(s *State, leaseID string, call ToolCall, use resources.Use, err error, now time.Time, covered func(leaseID string, names []string) bool) GateResult {
	if ok, why := s.Live(leaseID, now); !ok {
		return GateResult{Verdict: VerdictBlock, Reason: why}
	}
	g := s.Leases[leaseID].Granted
	if !contains(g.Allow.Tools, call.Tool) && !contains(g.Allow.Tools, resources.ToolAlias(call.Tool)) {
		return GateResult{Verdict: VerdictDeny, Reason: fmt.Sprintf("tool %s is not in allow.tools (%s)", call.Tool, listOrNone(g.Allow.Tools))}
	}
	if err != nil {
		return GateResult{Verdict: VerdictDeny, Reason: "cannot tell what the call touches, so it is refused: " + err.Error()}
	}
	// A recursive read reaches what lies below its root: links that lead
	// out become reads; a tree that cannot be checked is held.
	use = checkTrees(g, use)
	use = checkGitReads(g, use)
	res := GateResult{Use: use}

	// Program text the gate cannot see (`curl x | sh`, `sh -c "$X"`) could
	// run anything, so it is refused whatever the lists say.
	if use.PipesIntoInterpreter {
		res.Verdict, res.Reason = VerdictDeny, "the command feeds text the gate cannot see into an interpreter (e.g. curl … | sh), so it is refused"
		return res
	}
	// Deny beats allow: every resource is checked against the deny lists
	// before any is checked against the allow lists.
	if why := deniedBy(g, use); why != "" {
		res.Verdict, res.Reason = VerdictDeny, why
		return res
	}
	if why := outsideAllow(g, use); why != "" {
		res.Verdict, res.Reason = VerdictDeny, why
		return res
	}

	// Budget left on the whole chain.
	if f, spent := spentOnChain(s, leaseID); spent {
		res.Verdict, res.Reason = VerdictBlock, fmt.Sprintf("budget %s is spent on this lease's chain", f)
		return res
	}

	// A human decides when an approval name matches, unless a remembered
	// grant for this lease already covers it.
	// What the gate cannot model but a human can read in the call (inline
	// interpreter code) is held for one, unless the lease grants it.
	held, why, everyCall := heldFor(g, use)
	if matched := approvalNames(g, call.Tool, use); len(matched)+len(held) > 0 {
		all := append(append([]string{}, held...), matched...)
		if covered == nil || everyCall || !covered(leaseID, all) {
			res.Verdict, res.Approvals = VerdictAsk, all
			res.Reason = "a human must approve: " + strings.Join(all, ", ") + " (approvals)"
			if len(held) > 0 {
				res.Reason = "a human must approve: " + why
			}
			return res
		}
	}
	res.Verdict, res.Reason = VerdictAllow, "within the lease"
	return res
}

// deniedBy names the first resource of use that a deny list of g
// matches, or returns "".
func deniedBy(g *Manifest, use resources.Use) string {
	for _, exe := range use.Executables {
		if contains(g.Deny.Commands, exe) {
			return fmt.Sprintf("command %s is denied (deny.commands)", exe)
		}
	}
	deny := resources.CompileDenyPaths(g.Deny.Paths)
	for _, list := range [][]resources.PathRef{use.Reads, use.Writes} {
		for _, p := range list {
			if pat, ok := deny.Match(p); ok {
				return fmt.Sprintf("path %s is denied by %s (deny.paths)", displayPath(p), pat)
			}
		}
	}
	if why := lostFoundRead(use); why != "" {
		return why
	}
	// A recursive read of a directory reads every file below it.
	if len(use.TreeReads) > 0 && use.TreeChecked != nil && use.TreeChecked.Result.Denied != nil {
		return treeDenied(use.TreeChecked.Result.Denied)
	}
	// git prints what its object store and index hold (git log -p, git
	// show, git diff …), whatever path names it.
	if len(use.GitReads) > 0 && use.GitChecked != nil && use.GitChecked.Result.Denied != nil {
		return gitDenied(use.GitChecked.Result.Denied)
	}
	// A write to a directory (rm -r, mv, git clean) changes everything
	// below it, files the agent may create there first included: a deny
	// entry that can match a path below it refuses the write, as a
	// protected path does.
	for _, p := range use.Writes {
		if p.Inside && p.Rel == "." {
			// Refused whatever the lists say (outsideAllow): the plainer
			// reason for the human than the first deny entry below it.
			return workspaceItself(p)
		}
		for _, pat := range g.Deny.Paths {
			if resources.WriteTouches(pat, p) {
				return fmt.Sprintf("write to %s is denied: %s can match a path below it (deny.paths)", displayPath(p), pat)
			}
		}
		// A file with other names (cp -l, ln, a store of hard links)
		// changes under all of them: the gate cannot tell where they
		// are — a protected file, a denied one, outside the workspace.
		if n := resources.HardLinks(p.Abs); n > 1 {
			return fmt.Sprintf("write to %s goes through a hard link: the file has %d names, and the gate cannot tell which the write changes", displayPath(p), n)
		}
	}
	// A shell argument may name a file the program opens itself (cat,
	// cp, tar): one that matches a deny entry refuses the call.
	for _, p := range use.Mentions {
		if pat, ok := deny.Match(p); ok {
			return fmt.Sprintf("argument %s names a denied path (%s, deny.paths)", displayPath(p), pat)
		}
	}
	// A search pattern (Glob, Grep's glob) that can match a denied path
	// reads it.
	for _, gl := range use.Globs {
		for _, pat := range g.Deny.Paths {
			if resources.MatchDenyGlob(pat, gl) {
				return fmt.Sprintf("pattern %s can match a path denied by %s (deny.paths)", gl.Pattern, pat)
			}
		}
	}
	for _, h := range use.Hosts {
		for _, pat := range g.Deny.Hosts {
			if resources.HostContains(pat, h) {
				return fmt.Sprintf("host %s is denied by %s (deny.hosts)", h, pat)
			}
		}
	}
	return ""
}

// workspaceItself is the reason a write to the workspace root is refused.
func workspaceItself(p resources.PathRef) string {
	return fmt.Sprintf("the call would modify the workspace itself (%s), not a path inside it", p.Abs)
}

// outsideAllow names the first resource of use that the allow lists of g
// do not cover (every path inside the workspace and inside an allowed
// glob, every host and executable listed), or returns "".
func outsideAllow(g *Manifest, use resources.Use) string {
	for _, p := range use.Writes {
		if !p.Inside {
			return fmt.Sprintf("write to %s escapes the workspace", displayPath(p))
		}
		if p.Rel == "." {
			return workspaceItself(p)
		}
		if !matchAny(g.Allow.WritePaths, p.Rel) {
			return fmt.Sprintf("write to %s is outside allow.write_paths (%s)", p.Rel, listOrNone(g.Allow.WritePaths))
		}
	}
	for _, p := range use.Reads {
		if !p.Inside {
			return fmt.Sprintf("read of %s escapes the workspace", displayPath(p))
		}
		// Write access implies read access to the same paths.
		if !matchAny(g.Allow.ReadPaths, p.Rel) && !matchAny(g.Allow.WritePaths, p.Rel) {
			return fmt.Sprintf("read of %s is outside allow.read_paths (%s)", p.Rel, listOrNone(g.Allow.ReadPaths))
		}
	}
	for _, h := range use.Hosts {
		if !hostAllowed(g.Allow.Hosts, h) {
			return fmt.Sprintf("host %s is not in allow.hosts (%s)", h, listOrNone(g.Allow.Hosts))
		}
	}
	for _, exe := range use.Executables {
		if !contains(g.Allow.Commands, exe) {
			return fmt.Sprintf("command %s is not in allow.commands (%s)", exe, listOrNone(g.Allow.Commands))
		}
	}
	return ""
}

// heldFor names the holds of a shell command (inline:<program>, or the
// hold's own approval name) that the lease does not grant with
// "<program>+inline" in allow.commands, and why they are held; everyCall
// is true when one of them is asked on every call, whatever was granted
// for the lease.
func heldFor(g *Manifest, use resources.Use) (names []string, why string, everyCall bool) {
	var reasons []string
	for _, h := range use.Holds {
		if h.Inline && contains(g.Allow.Commands, h.Program+"+inline") {
			continue
		}
		name := "inline:" + h.Program
		if h.Approval != "" {
			name = h.Approval
		}
		if !contains(names, name) {
			names = append(names, name)
		}
		reasons = append(reasons, h.Reason)
		everyCall = everyCall || h.EveryCall
	}
	return names, strings.Join(reasons, "; "), everyCall
}

func hostAllowed(patterns []string, host string) bool {
	for _, pat := range patterns {
		if resources.HostContains(pat, host) {
			return true
		}
	}
	return false
}

// approvalNames are the approval entries of g the call matches (its tool,
// command:<exe> per program, host:<h> per host), sorted, without repeats.
func approvalNames(g *Manifest, tool string, use resources.Use) []string {
	if len(g.Approvals) == 0 {
		return nil // nothing can match: no names to build
	}
	names := []string{tool}
	for _, exe := range use.Executables {
		names = append(names, "command:"+exe)
	}
	for _, h := range use.Hosts {
		names = append(names, "host:"+h)
	}
	var matched []string
	for _, n := range names {
		if contains(g.Approvals, n) && !contains(matched, n) {
			matched = append(matched, n)
		}
	}
	sort.Strings(matched)
	return matched
}

func matchAny(globs []string, rel string) bool {
	for _, g := range globs {
		if resources.MatchGlob(g, rel) {
			return true
		}
	}
	return false
}

func displayPath(p resources.PathRef) string {
	switch {
	case p.Inside:
		return p.Rel
	case p.Home != "":
		return p.Home
	}
	return p.Abs
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	if len(s) > 6 {
		return strings.Join(s[:6], ", ") + ", …"
	}
	return strings.Join(s, ", ")
}

// spentOnChain is the first of steps, tokens and cost_usd that
// s.Remaining(id, …) holds at or below zero: for each, the least left
// (never below zero) over the lease and its ancestors that set it, in
// Remaining's order. It reads only those three, so it builds no chain,
// no Budget and no count of live children (Remaining walks every lease
// for fan-out) on every call. TestSpentOnChainIsRemaining holds the two
// equal.
func spentOnChain(s *State, id string) (BudgetField, bool) {
	if l := s.Leases[id]; l == nil || l.Granted == nil {
		return "", false
	}
	for _, f := range [...]BudgetField{Steps, Tokens, CostUSD} {
		least, have := 0.0, false
		chain := chainWalk{s: s, cur: id}
		for c, ok := chain.next(); ok; c, ok = chain.next() {
			if c == nil || c.Granted == nil {
				continue
			}
			if g, ok := c.Granted.Budget.Get(f); ok {
				left := g - c.Spent.of(f)
				if left < 0 {
					left = 0
				}
				if !have || left < least {
					least, have = left, true
				}
			}
		}
		if have && least <= 0 {
			return f, true
		}
	}
	return "", false
}

// chainWalk visits a lease and then the ancestors State.Chain lists, in
// its order, stopping where it stops (a parent seen already), without
// building the list: a short chain's seen names are kept in an array.
type chainWalk struct {
	s       *State
	cur     string // the next lease to visit; "" when done
	started bool
	seen    [8]string
	n       int
	more    map[string]bool // seen past the array
}

// next is the next lease of the chain (nil for an ancestor the state does
// not hold) and whether there was one.
func (w *chainWalk) next() (*LeaseState, bool) {
	if !w.started {
		w.started = true
		w.mark(w.cur)
		return w.s.Leases[w.cur], true
	}
	l := w.s.Leases[w.cur]
	if l == nil || l.ParentID == "" || w.saw(l.ParentID) {
		return nil, false
	}
	w.cur = l.ParentID
	w.mark(w.cur)
	return w.s.Leases[w.cur], true
}

func (w *chainWalk) saw(id string) bool {
	for _, s := range w.seen[:w.n] {
		if s == id {
			return true
		}
	}
	return w.more[id]
}

func (w *chainWalk) mark(id string) {
	if w.n < len(w.seen) {
		w.seen[w.n] = id
		w.n++
		return
	}
	if w.more == nil {
		w.more = map[string]bool{}
	}
	w.more[id] = true
}
