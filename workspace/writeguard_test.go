package workspace

import (
	"slices"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/registry"
)

// The registry leaves the root policy's in-workspace write guards out of a
// recursive read's check (registry.WriteGuardPaths): each must be one of
// the entries init writes, and each such entry one of them, so that a
// user's own deny entry is never taken for one.
func TestWriteGuardsAreTheProtectedWorkspacePaths(t *testing.T) {
	var inWorkspace []string
	for _, p := range protectedPaths {
		if !strings.HasPrefix(p, "~") {
			inWorkspace = append(inWorkspace, p)
		}
	}
	slices.Sort(inWorkspace)
	guards := slices.Clone(registry.WriteGuardPaths)
	slices.Sort(guards)
	if !slices.Equal(inWorkspace, guards) {
		t.Fatalf("in-workspace protected paths %v, registry.WriteGuardPaths %v", inWorkspace, guards)
	}
}
