package resources

import "strings"

// A write is checked against every protected pattern (about thirty by
// default) and nearly every written path begins with a name no pattern
// begins with: src/a.go against .git/**, .mcp.json, .claude/settings*.json.
// firstSegment and cannotTouch decide those without the glob engine, the
// case folding or the directory forms, from the first name alone.

// firstSegment is the lower-cased first name of a pattern's cleaned
// path — relative to the workspace, the home directory or "/" as its kind
// says — when that name is literal: no glob character, not "." or "..".
// "" when there is none (a pattern that begins with a wildcard, "~", "/").
func firstSegment(clean string, kind byte) string {
	if kind == '/' {
		clean = strings.TrimPrefix(clean, "/")
	}
	first, _, _ := strings.Cut(clean, "/")
	if first == "" || first == "." || first == ".." || hasGlobMeta(first) {
		return ""
	}
	return strings.ToLower(first)
}

// cannotTouch reports that a write of ref cannot touch d, by the first
// names alone. A pattern matches a path, or lies below a written
// directory, only where the path's first name matches the pattern's
// first name; with both literal, that is equality — under strings.ToLower
// too, which is what case folding compares (denyPattern.lower, refFold).
// Every form of the path the pattern's kind is matched against must begin
// with a different literal name; a path that is, or holds, the pattern's
// root (the workspace, the home directory, "/"), or whose form is missing
// its first name ("." or ""), is left to the full check. A form that is
// absent ("" — a path outside the home directory for a "~/" pattern) can
// match nothing. An invalid pattern matches everything (denyPattern.match),
// so it is never skipped. h holds ref's first names, worked out once for
// all the patterns of a list (nil: here).
func (d *denyPattern) cannotTouch(ref *PathRef, h *refHeads) bool {
	if d.first == "" || !d.valid || !d.belowValid {
		return false
	}
	if h == nil {
		h = new(refHeads)
	}
	k := h.of(ref, d.kind)
	return k.usable && k.a.differs(d.first) && k.b.differs(d.first)
}

// refHeads are a path's first names in the forms each pattern kind reads
// ('~', '/', other), worked out when first asked.
type refHeads struct {
	kinds [3]kindHeads
	done  [3]bool
}

// kindHeads: the first names of the two forms (resolved, lexical) of one
// kind; usable is false where the path is, or holds, the kind's root.
type kindHeads struct {
	usable bool
	a, b   firstName
}

// firstName is one form's first name, lower-cased: absent (the form is ""),
// unknown (not literal, ".", ".." or empty), or name.
type firstName struct {
	absent, unknown bool
	name            string
}

func (h firstName) differs(first string) bool {
	return h.absent || !h.unknown && h.name != first
}

func (h *refHeads) of(ref *PathRef, kind byte) kindHeads {
	i := kindIndex(kind)
	if h.done[i] {
		return h.kinds[i]
	}
	h.done[i] = true
	var a, b string
	switch kind {
	case '~':
		if ref.holdsHome || ref.Home == "~" || ref.lexHome == "~" {
			return h.kinds[i]
		}
		a, b = strings.TrimPrefix(ref.Home, "~/"), strings.TrimPrefix(ref.lexHome, "~/")
	case '/':
		if ref.Abs == "/" || ref.lexAbs == "/" {
			return h.kinds[i]
		}
		a, b = strings.TrimPrefix(ref.Abs, "/"), strings.TrimPrefix(ref.lexAbs, "/")
	default:
		if ref.holdsWS {
			return h.kinds[i]
		}
		a, b = ref.Rel, ref.lexRel
	}
	h.kinds[i] = kindHeads{usable: true, a: headOf(a), b: headOf(b)}
	return h.kinds[i]
}

func headOf(form string) firstName {
	if form == "" {
		return firstName{absent: true}
	}
	name, _, _ := strings.Cut(form, "/")
	if name == "" || name == "." || name == ".." || hasGlobMeta(name) {
		return firstName{unknown: true}
	}
	if lowerChanges(name) {
		name = strings.ToLower(name)
	}
	return firstName{name: name}
}
