// Package applypatch reads the file headers of a Codex apply_patch patch:
// which files it adds, updates, moves and deletes. Only which files a
// patch writes matters to the gate; the hunks are not interpreted. The
// bridge maps Codex's patch calls with it and the registry's shell
// analysis derives the writes of a shell line that runs apply_patch with
// it, so both read a patch the same way.
package applypatch

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/leasedeck/leasedeck/termtext"
)

// Op is one file operation of an apply_patch patch.
type Op struct {
	Kind   string // "add", "update", "delete"
	Path   string
	MoveTo string // update with "*** Move to:"
}

// ErrNoPatch is returned when text holds no "*** Begin Patch" envelope.
var ErrNoPatch = errors.New("no '*** Begin Patch' envelope")

// Parse reads the file headers of a Codex apply_patch patch:
// "*** Add File: P", "*** Update File: P" (optionally followed by "*** Move
// to: Q"), "*** Delete File: P". Hunk bodies are not interpreted: only which
// files the patch writes matters to the gate. Any other "*** " header line
// is an error, so that a patch format we do not understand is refused
// rather than read as writing nothing.
func Parse(text string) ([]Op, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	begin := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "*** Begin Patch" {
			begin = i
			break
		}
	}
	if begin < 0 {
		return nil, ErrNoPatch
	}
	var ops []Op
	var odd error
	header := func(l, prefix string, lineNo int) (string, bool) {
		if !strings.HasPrefix(l, prefix) {
			return "", false
		}
		// One space after the marker is the format's; a path that starts
		// with more white space is read as " p" by Codex's apply_patch
		// and as "p" by readers that trim, so which file it names is not
		// the gate's to guess.
		rest := strings.TrimPrefix(l[len(prefix):], " ")
		if p := strings.TrimSpace(rest); p != rest && odd == nil {
			odd = fmt.Errorf("line %d: white space around the path in %q (clients read it differently)", lineNo, termtext.Clip(l, 80))
		}
		return strings.TrimSpace(rest), true
	}
	for n, raw := range lines[begin+1:] {
		lineNo := begin + n + 2
		l := strings.TrimRight(raw, " \t")
		if !strings.HasPrefix(l, "*** ") {
			if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "*** ") {
				// Codex's apply_patch trims a line before it looks for a
				// header, so an indented "*** Add File:" writes a file
				// that a reader skipping it as hunk text never sees.
				return nil, fmt.Errorf("line %d: a patch header after white space %q (apply_patch may read it as a header)", lineNo, termtext.Clip(raw, 80))
			}
			continue // hunk body: +, -, space, @@ lines
		}
		if l == "*** End Patch" {
			break
		}
		if l == "*** End of File" {
			continue
		}
		var op Op
		if p, ok := header(l, "*** Add File:", lineNo); ok {
			op = Op{Kind: "add", Path: p}
		} else if p, ok := header(l, "*** Update File:", lineNo); ok {
			op = Op{Kind: "update", Path: p}
		} else if p, ok := header(l, "*** Delete File:", lineNo); ok {
			op = Op{Kind: "delete", Path: p}
		} else if p, ok := header(raw, "*** Move to:", lineNo); ok {
			// Codex takes the move line as it is, trailing white space
			// included: header(raw) refuses that rather than trim it.
			if len(ops) == 0 || ops[len(ops)-1].Kind != "update" || ops[len(ops)-1].MoveTo != "" {
				return nil, fmt.Errorf("line %d: '*** Move to:' must follow an '*** Update File:' header", lineNo)
			}
			if p == "" {
				return nil, fmt.Errorf("line %d: empty path in '*** Move to:'", lineNo)
			}
			ops[len(ops)-1].MoveTo = p
			continue
		} else {
			return nil, fmt.Errorf("line %d: unknown patch header %q", lineNo, termtext.Clip(l, 80))
		}
		if op.Path == "" {
			return nil, fmt.Errorf("line %d: empty path in %q", lineNo, termtext.Clip(l, 80))
		}
		ops = append(ops, op)
	}
	if odd != nil {
		return nil, odd
	}
	if len(ops) == 0 {
		return nil, errors.New("patch names no file")
	}
	return ops, nil
}

// Writes lists every path a patch writes, in order and without
// repeats: added, updated and deleted files, and move destinations.
func Writes(ops []Op) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, op := range ops {
		add(op.Path)
		add(op.MoveTo)
	}
	return out
}

// WritesIn lists the writes of every patch envelope in a shell line.
// A line without one runs apply_patch on text the gate cannot see.
func WritesIn(line string) ([]string, error) {
	var writes []string
	rest := line
	for {
		i := strings.Index(rest, "*** Begin Patch")
		if i < 0 {
			break
		}
		ops, err := Parse(rest[i:])
		if err != nil {
			return nil, err
		}
		writes = append(writes, Writes(ops)...)
		end := strings.Index(rest[i:], "*** End Patch")
		if end < 0 {
			break
		}
		rest = rest[i+end:]
	}
	if len(writes) == 0 {
		return nil, errors.New("the patch it applies is not on the line, so what it writes cannot be told")
	}
	return writes, nil
}

// Whole checks that text is one patch envelope and nothing else, as
// Codex's apply_patch requires of a patch it is handed whole: the first
// line "*** Begin Patch", the last "*** End Patch" (each trimmed), no other
// envelope marker between them; Codex's lenient heredoc form (<<'EOF' …
// EOF around it) included. A reader that stops at the first "*** End
// Patch" would otherwise read a different patch from one whose envelope
// repeats or trails on.
func Whole(text string) error {
	lines := strings.Split(strings.ReplaceAll(strings.TrimSpace(text), "\r\n", "\n"), "\n")
	if n := len(lines); n >= 4 && (lines[0] == "<<EOF" || lines[0] == "<<'EOF'" || lines[0] == `<<"EOF"`) && strings.HasSuffix(lines[n-1], "EOF") {
		lines = lines[1 : n-1]
	}
	n := len(lines)
	if n < 2 || strings.TrimSpace(lines[0]) != "*** Begin Patch" || strings.TrimSpace(lines[n-1]) != "*** End Patch" {
		return errors.New("the patch is not one '*** Begin Patch' … '*** End Patch' envelope with nothing around it")
	}
	for i, l := range lines[1 : n-1] {
		if t := strings.TrimSpace(l); t == "*** Begin Patch" || t == "*** End Patch" {
			return fmt.Errorf("line %d: a second envelope marker %q inside the patch", i+2, t)
		}
	}
	return nil
}
