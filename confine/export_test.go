package confine

import "sort"

// Clients lists the clients with a profile.
func Clients() []string {
	out := make([]string, 0, len(profiles))
	for c := range profiles {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}
