package approvals

import (
	"reflect"
	"testing"
	"time"
)

func TestStateRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	b := New()
	for i, id := range []string{"a", "b", "c", "d"} {
		if err := b.Add(Request{ID: id, LeaseID: "L" + id[:1], Names: []string{"command:rm", "host:x"}, CreatedAt: at.Add(time.Duration(i) * time.Second), Deadline: at.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	b.Apply(Decision{RequestID: "a", Outcome: Approved, Scope: ForLease, By: "test", At: at})
	b.Apply(Decision{RequestID: "b", Outcome: Denied, Reason: "no", By: "test", At: at})
	b.Reserve("c") // a reservation is not state: a replay has none
	st := b.Export()
	back, err := FromState(st)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Export(), st) {
		t.Fatalf("round trip:\n%+v\n%+v", back.Export(), st)
	}
	if !back.Covered("La", []string{"host:x"}) || back.Covered("Lb", []string{"command:rm"}) {
		t.Fatal("grants not restored")
	}
	if p := back.Pending(); len(p) != 2 || p[0].ID != "c" || back.CheckDecide("c") != nil {
		t.Fatalf("pending %+v", p)
	}
	if d, err := back.Wait(t.Context(), "a"); err != nil || d.Outcome != Approved {
		t.Fatalf("a decided request does not answer Wait: %+v %v", d, err)
	}
}

// A state no Book could have produced is refused, not half restored.
func TestFromStateRefusesImpossibleStates(t *testing.T) {
	ok := Request{ID: "a", LeaseID: "L"}
	for name, st := range map[string]State{
		"no id":           {Seq: 1, Entries: []EntryState{{Seq: 1, Request: Request{LeaseID: "L"}}}},
		"no lease":        {Seq: 1, Entries: []EntryState{{Seq: 1, Request: Request{ID: "a"}}}},
		"an id twice":     {Seq: 2, Entries: []EntryState{{Seq: 1, Request: ok}, {Seq: 2, Request: ok}}},
		"seq past":        {Seq: 1, Entries: []EntryState{{Seq: 5, Request: ok}}},
		"bad decision":    {Seq: 1, Entries: []EntryState{{Seq: 1, Request: ok, Decision: &Decision{RequestID: "a", Outcome: "maybe"}}}},
		"other's verdict": {Seq: 1, Entries: []EntryState{{Seq: 1, Request: ok, Decision: &Decision{RequestID: "b", Outcome: Denied}}}},
	} {
		if _, err := FromState(st); err == nil {
			t.Errorf("%s: restored", name)
		}
	}
}
