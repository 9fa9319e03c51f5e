package resources

import "github.com/leasedeck/leasedeck/applypatch"

// The apply_patch reader is package applypatch's (the bridge reads Codex's
// patch calls with it without linking this package).

// PatchOp is one file operation of an apply_patch patch.
type PatchOp = applypatch.Op

// ErrNoPatch is returned when text holds no "*** Begin Patch" envelope.
var ErrNoPatch = applypatch.ErrNoPatch

// ParseApplyPatch reads the file headers of a Codex apply_patch patch.
func ParseApplyPatch(text string) ([]PatchOp, error) { return applypatch.Parse(text) }

// PatchWrites lists every path a patch writes, in order and without
// repeats.
func PatchWrites(ops []PatchOp) []string { return applypatch.Writes(ops) }

// patchWritesIn lists the writes of every patch envelope in a shell line.
func patchWritesIn(line string) ([]string, error) { return applypatch.WritesIn(line) }
