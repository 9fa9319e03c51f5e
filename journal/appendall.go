package journal

import (
	"encoding/json"
	"fmt"

	"github.com/leasedeck/leasedeck/schemas"
)

// AppendAll writes records as consecutive lines of one file, in order,
// and returns once all are durable. Every record is checked before any is
// written, so an invalid one refuses the whole set. The lines are
// submitted back to back, so they share fsyncs (a 10,000-line cascade
// costs a couple of them, not 10,000); another writer's line may land
// between two of them, never out of their order.
func (w *Writer) AppendAll(k Kind, records []map[string]any) ([]Appended, error) {
	if !k.valid() {
		return nil, fmt.Errorf("journal: unknown file kind %d", int(k))
	}
	bodies := make([][]byte, len(records))
	for i, record := range records {
		body, err := w.prepare(k, record)
		if err != nil {
			return nil, fmt.Errorf("record %d of %d: %w", i+1, len(records), err)
		}
		bodies[i] = body
	}
	if b := w.files[k].breaks; len(b) > 0 {
		return nil, &BreakError{Break: b[0], More: len(b) - 1}
	}
	if err := w.stoppedErr(); err != nil {
		return nil, err
	}
	reqs := make([]*request, len(bodies))
	for i, body := range bodies {
		reqs[i] = &request{kind: k, body: body, done: make(chan struct{})}
	}
	if err := w.submit(reqs); err != nil {
		return nil, err
	}
	out := make([]Appended, len(reqs))
	var firstErr error
	for i, r := range reqs {
		<-r.done
		out[i] = r.res
		if r.err != nil && firstErr == nil {
			firstErr = r.err
		}
	}
	return out, firstErr
}

// prepare canonicalises a record and validates the bytes that will be
// written, as a reader will see them, with the journal's members in place
// (the schemas are open, so their values do not matter, only that the
// line validates as a whole). It runs in the caller's goroutine, so that
// concurrent appenders validate in parallel and the commit loop only
// writes.
func (w *Writer) prepare(k Kind, record map[string]any) ([]byte, error) {
	if name, ok := hasReserved(record); ok {
		return nil, fmt.Errorf("journal: record for %s already has a %q member; seq, prev and mac are the journal's own", k.FileName(), name)
	}
	body, err := schemas.Canonical(record)
	if err != nil {
		return nil, fmt.Errorf("journal: record for %s: %w", k.FileName(), err)
	}
	v, err := schemas.ParseJSON(body)
	if err != nil {
		return nil, fmt.Errorf("journal: record for %s: %w", k.FileName(), err)
	}
	m := v.(map[string]any)
	m["seq"], m["prev"], m["mac"] = json.Number("1"), ZeroHash, ZeroHash
	errs, err := validateValue(k, m)
	if err != nil {
		return nil, fmt.Errorf("journal: validating a record for %s: %w", k.FileName(), err)
	}
	if len(errs) > 0 {
		return nil, &InvalidRecordError{Kind: k, Errors: errs}
	}
	return body, nil
}
