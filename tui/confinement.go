package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/termtext"
)

// How a lease's process tree is held, as the tree and the detail pane
// show it: from the run's journaled record (leasedeck.run.confined) of
// the lease or its nearest ancestor that a `leasedeck run` holds.

// confinementKind is the one-cell answer the tree shows.
type confinementKind int

const (
	hooksOnly  confinementKind = iota // no run: the hook is the only check
	unconfined                        // a run without the kernel (--allow-unconfined)
	kernel                            // a run held by Landlock
)

// confinementGlyph is a kind as one cell, with the style that colours it.
// A confined tree is OK; an unconfined run is a warning (someone chose to
// run without the kernel); hooks only is the ordinary case, muted.
func confinementGlyph(t *theme, k confinementKind) (string, lipgloss.Style) {
	switch k {
	case kernel:
		return "▣", t.OK
	case unconfined:
		return "□", t.Warn
	}
	return "·", t.Muted
}

func kindOf(c *registry.Confinement) confinementKind {
	switch {
	case c == nil:
		return hooksOnly
	case c.Confined:
		return kernel
	}
	return unconfined
}

// confinementText says in words what holds the tree: what the kernel
// enforces, or why nothing does.
func confinementText(c *registry.Confinement, self string) string {
	if c == nil {
		return "hooks only: no leasedeck run, so the kernel holds nothing; the gate checks each call"
	}
	var s string
	if c.Confined {
		parts := []string{fmt.Sprintf("Landlock ABI %d", c.LandlockABI)}
		if c.MountNamespace {
			parts = append(parts, "mount namespace (read-only binds)")
		} else {
			parts = append(parts, "no mount namespace")
		}
		if c.Narrowed > 0 {
			parts = append(parts, fmt.Sprintf("%d hierarchies narrowed", c.Narrowed))
		}
		if c.Network != "" {
			parts = append(parts, "network: "+c.Network)
		}
		s = "confined in the kernel: " + strings.Join(parts, ", ")
	} else {
		why := c.Reason
		if why == "" {
			why = "no reason recorded"
		}
		s = "UNCONFINED run (hooks only): " + why
		if c.Network != "" {
			s += "; network: " + c.Network
		}
	}
	if c.RunLeaseID != "" && c.RunLeaseID != self {
		s += " (by the run of lease " + record.ShortID(c.RunLeaseID) + ")"
	}
	if c.Ended {
		s += "; the run has ended"
	}
	return termtext.Clean(s)
}

// renderConfinement draws the detail pane's confinement lines.
func renderConfinement(t *theme, c *registry.Confinement, self string, width int) []string {
	glyph, st := confinementGlyph(t, kindOf(c))
	var out []string
	for i, l := range wrapWords("", confinementText(c, self), width-2) {
		p := "  "
		if i == 0 {
			p = st.Render(glyph) + " "
		}
		out = append(out, fit(p+st.Render(l), width))
	}
	return out
}

// confinementWord is the kind in a glyph and a word, for a one-line head.
func confinementWord(t *theme, c *registry.Confinement) string {
	k := kindOf(c)
	glyph, st := confinementGlyph(t, k)
	return st.Render(glyph + " " + [...]string{hooksOnly: "hooks only", unconfined: "UNCONFINED", kernel: "confined"}[k])
}
