package workspace

import "sort"

// AgentNames lists the loaded agents' names, sorted.
func (p Policy) AgentNames() []string {
	out := make([]string, 0, len(p.Agents))
	for n := range p.Agents {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
