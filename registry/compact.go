package registry

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/schemas"
)

// A closed lease opens nothing any more, but it stays in the state for
// as long as the registry runs: its status, spend and children answer
// `leases` and the cascade. What only a person reading one lease needs —
// the signed lease, the declaration, the gate decisions — is dropped from
// memory when it closes and read back from the journal on demand, checked
// line by line (seq, prev, mac) so that nothing written to the files
// after the fact is shown as history. Memory then grows with the number
// of leases, not with everything they ever did.

// lineRange is where a lease's lines are in the two files.
type lineRange struct {
	located   bool // every line folded so far had a known place
	record    int64
	recordSeq uint64 // the granted or refused record in leases.jsonl
	first     int64  // first gate line about the lease in audit.jsonl; -1: none
	firstSeq  uint64
	last      int64 // last such line
}

func (w *lineRange) start(l *record.Line) {
	*w = lineRange{located: l.Located, record: l.Offset, recordSeq: l.Seq, first: -1, last: -1}
}

func (w *lineRange) addActivity(l *record.Line) {
	if !l.Located {
		w.located = false
		return
	}
	// Concurrent appends may fold out of file order: keep the extremes.
	if w.first < 0 || l.Offset < w.first {
		w.first, w.firstSeq = l.Offset, l.Seq
	}
	w.last = max(w.last, l.Offset)
}

// compact drops what can be read back from the journal, when every line
// of the lease has a known place.
func (l *LeaseState) compact() {
	if !l.where.located || l.Compacted {
		return
	}
	l.agent, l.purpose = l.Agent(), l.Purpose()
	l.Lease, l.Declared, l.Activity = nil, nil, nil
	if l.Granted != nil {
		g := *l.Granted
		g.Raw = nil // the granted tree is in the signed lease, on disk
		l.Granted = &g
	}
	l.Compacted = true
}

// history reads a compacted lease's signed lease, declaration and recent
// gate decisions back from the journal.
func (s *Service) history(id string, w lineRange) (lease, declared map[string]any, events []GateEvent, err error) {
	return readHistory(s.cfg.JournalDir, s.cfg.Key, id, w)
}

// readHistory is history for any reader holding the key (the cockpit).
func readHistory(dir string, key Key, id string, w lineRange) (lease, declared map[string]any, events []GateEvent, err error) {
	var rec *record.Lease
	err = scanChecked(key, filepath.Join(dir, journal.LeasesFile), journal.Leases, w.record, w.recordSeq, func(l *record.Line) bool {
		rec = &l.Lease
		return false
	})
	if err != nil {
		return nil, nil, nil, err
	}
	if rec == nil || rec.LeaseID != id {
		return nil, nil, nil, fmt.Errorf("the record of lease %s is not where it was", id)
	}
	lease, declared = rec.Lease, rec.Declared
	if w.first < 0 {
		return lease, declared, nil, nil
	}
	reached := false
	err = scanChecked(key, filepath.Join(dir, journal.AuditFile), journal.Audit, w.first, w.firstSeq, func(l *record.Line) bool {
		reached = l.Offset >= w.last
		a := &l.Audit
		if a.Details.LeaseID == id && isGateEvent(a.EventType) {
			events = append(events, GateEvent{At: a.Time(), Tool: a.Details.Tool, Decision: a.Details.Decision,
				Reason: a.Reasoning, Summary: a.Summary})
			if len(events) >= 2*maxActivity {
				events = append([]GateEvent(nil), events[len(events)-maxActivity:]...)
			}
		}
		return l.Offset < w.last
	})
	if err == nil && !reached {
		err = fmt.Errorf("audit.jsonl ends before the lease's last decision")
	}
	if len(events) > maxActivity {
		events = events[len(events)-maxActivity:]
	}
	return lease, declared, events, err
}

func isGateEvent(et string) bool {
	return et == EventGateAllowed || et == EventGateDenied || et == EventGateHeld
}

// scanChecked reads a file from offset, whose first line must have seq
// firstSeq, checking every line's chain and mac with the deployment key,
// and hands each to fn until fn returns false. A line that does not check
// ends the read with an error: history is shown only as it was written.
// It reads from the offset itself (journal.Scan would count every line
// before it first, which on a large file costs more than the history).
func scanChecked(key Key, path string, k journal.Kind, offset int64, firstSeq uint64, fn func(*record.Line) bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.NewSectionReader(f, offset, math.MaxInt64-offset), 64<<10)
	ch := journal.NewCheckerMidFile(k, key.Bytes())
	pos := offset
	for first := true; ; first = false {
		raw, err := r.ReadBytes('\n')
		if len(raw) == 0 || raw[len(raw)-1] != '\n' {
			if err != nil && err != io.EOF {
				return fmt.Errorf("%s: %w", k, err)
			}
			if first {
				return fmt.Errorf("%s ends before offset %d", k, offset)
			}
			return nil // the end of what is written
		}
		jl := journal.Line{Raw: raw[:len(raw)-1], Offset: pos}
		pos += int64(len(raw))
		v, perr := schemas.ParseJSON(jl.Raw)
		jl.Value, _ = v.(map[string]any)
		if perr != nil || jl.Value == nil {
			return fmt.Errorf("%s at offset %d is not a JSON object", k, jl.Offset)
		}
		jl.Seq, _ = strconv.ParseUint(fmt.Sprint(jl.Value["seq"]), 10, 64)
		if b := ch.Check(&jl); len(b) > 0 {
			return fmt.Errorf("%s does not check at seq %d: %s", k, jl.Seq, b[0].String())
		}
		if first && jl.Seq != firstSeq {
			return fmt.Errorf("%s at offset %d has seq %d, not %d", k, jl.Offset, jl.Seq, firstSeq)
		}
		l := record.Parse(k, jl.Value)
		l.Offset, l.Seq, l.Located = jl.Offset, jl.Seq, true
		if !fn(&l) {
			return nil
		}
	}
}
