package main

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// `leasedeck status` says how the registry rebuilt its state: from every
// line the first time, from the snapshot written at the clean stop the
// next, replaying only the lines after it.
func TestStatusSaysHowTheRegistryStarted(t *testing.T) {
	w := newWorkspace(t)
	status := func() wire.StatusResult {
		t.Helper()
		r := w.run("", "status")
		var st wire.StatusResult
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &st) != nil {
			t.Fatalf("status: %+v", r)
		}
		return st
	}
	w.serve()
	for range 6 {
		w.issue(w.writeManifest("a", 5, nil), "")
	}
	first := status()
	if first.Start.FromSnapshot || first.Start.SnapshotError != "" {
		t.Fatalf("first start: %+v", first.Start)
	}
	w.stop()
	total := 0
	for _, name := range []string{"leases.jsonl", "audit.jsonl"} {
		b, _ := os.ReadFile(w.journalFile(name))
		total += bytes.Count(b, []byte("\n"))
	}
	w.serve()
	again := status()
	if !again.Start.FromSnapshot || again.Start.SnapshotAt == "" || len(again.Start.Refused) > 0 ||
		total < 6 || again.Start.ReplayedLines > total/3 {
		t.Fatalf("a start after a clean stop: %+v (the journal holds %d lines)", again.Start, total)
	}
}
