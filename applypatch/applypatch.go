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
	header := func(l, prefix string) (string, bool) {
		if !strings.HasPrefix(l, prefix) {
			return "", false
		}
		return strings.TrimSpace(l[len(prefix):]), true
	}
	for n, raw := range lines[begin+1:] {
		l := strings.TrimRight(raw, " \t")
		if !strings.HasPrefix(l, "*** ") {
			continue // hunk body: +, -, space, @@ lines
		}
		lineNo := begin + n + 2
		if l == "*** End Patch" {
			break
		}
		if l == "*** End of File" {
			continue
		}
		var op Op
		if p, ok := header(l, "*** Add File:"); ok {
			op = Op{Kind: "add", Path: p}
		} else if p, ok := header(l, "*** Update File:"); ok {
			op = Op{Kind: "update", Path: p}
		} else if p, ok := header(l, "*** Delete File:"); ok {
			op = Op{Kind: "delete", Path: p}
		} else if p, ok := header(l, "*** Move to:"); ok {
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
