package registry

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/registry/resources"
)

// The person deciding a held call sees all of it: the whole command with
// its line breaks (a long comment cannot hide the second line), secrets
// masked, the full URL, a write's path, size and first lines, and the
// resources the gate derived.
func TestCallViewShowsTheWholeCall(t *testing.T) {
	long := "# " + strings.Repeat("harmless looking comment ", 40)
	for _, c := range []struct {
		name     string
		call     ToolCall
		use      resources.Use
		want     []string
		wantNot  []string
		programs []string
		bytes    int64
	}{
		{"a comment hides no line", ToolCall{"Bash", map[string]any{"command": long + "\nrm -rf ~/"}},
			resources.Use{Executables: []string{"rm"}}, []string{long, "\nrm -rf ~/"}, nil, []string{"rm"}, 0},
		{"secrets masked", ToolCall{"Bash", map[string]any{"command": "curl -H 'Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789' https://api.example.com/x"}},
			resources.Use{Executables: []string{"curl"}, Hosts: []string{"api.example.com"}}, []string{"curl", "https://api.example.com/x"},
			[]string{"ghp_abcdefghijklmnopqrstuvwxyz0123456789"}, []string{"curl"}, 0},
		{"the full URL", ToolCall{"WebFetch", map[string]any{"url": "https://example.com/a/very/long/path?q=" + strings.Repeat("x", 300)}},
			resources.Use{Hosts: []string{"example.com"}}, []string{"https://example.com/a/very/long/path?q=" + strings.Repeat("x", 300)}, nil, nil, 0},
		{"a write's path, size and start", ToolCall{"Write", map[string]any{"file_path": "src/a.go", "content": "package a\n\nfunc A() {}\n"}},
			resources.Use{}, []string{"src/a.go (23 B)", "package a\n", "func A() {}"}, nil, nil, 23},
		{"any other tool: its input", ToolCall{"mcp__db__query", map[string]any{"sql": "DROP TABLE users"}},
			resources.Use{}, []string{"mcp__db__query", "DROP TABLE users"}, nil, nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := callView(c.call, c.use)
			for _, w := range c.want {
				if !strings.Contains(v.Text, w) {
					t.Errorf("text lacks %q:\n%s", w, v.Text)
				}
			}
			for _, w := range c.wantNot {
				if strings.Contains(v.Text, w) {
					t.Errorf("text shows %q:\n%s", w, v.Text)
				}
			}
			if strings.Join(v.Programs, ",") != strings.Join(c.programs, ",") || v.Bytes != c.bytes {
				t.Errorf("programs %v bytes %d, want %v %d", v.Programs, v.Bytes, c.programs, c.bytes)
			}
		})
	}
	huge := callText(ToolCall{"Bash", map[string]any{"command": strings.Repeat("a", callTextMax+50)}})
	if !strings.HasSuffix(huge, "… 50 more characters not recorded") {
		t.Errorf("an oversized call is not cut with a note: …%s", huge[len(huge)-60:])
	}
}

// The view survives the journal: written as the request's "call" member,
// read back by the fold (numbers arrive as json.Number), and absent from
// an older record without one.
func TestCallViewRoundTripsThroughTheFold(t *testing.T) {
	v := approvals.CallView{Text: "rm -rf build\nls", Programs: []string{"rm", "ls"}, Reads: []string{"src/a"},
		Writes: []string{"build"}, Hosts: []string{"example.com"}, Bytes: 12}
	for _, withCall := range []bool{true, false} {
		a := record.NewAudit(EventApprovalAsked, mustTime(t, "2026-11-29T12:00:00Z"), "Bash: rm -rf build", record.Details{
			ApprovalID: "ap-1", LeaseID: "l-1", Tool: "Bash", Names: "command:rm", Deadline: "2026-11-29T12:02:00Z"})
		if withCall {
			a.Extra = map[string]any{"call": callRecord(v)}
		}
		rec := a.Value()
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var back map[string]any
		if err := dec.Decode(&back); err != nil {
			t.Fatal(err)
		}
		book := approvals.New()
		if err := Fold(NewState(), book, journal.Audit, back); err != nil {
			t.Fatal(err)
		}
		r, _, ok := book.Get("ap-1")
		if !ok {
			t.Fatal("the request did not fold")
		}
		want := v
		if !withCall {
			want = approvals.CallView{}
		}
		if strings.Join(r.Call.Programs, ",") != strings.Join(want.Programs, ",") || r.Call.Text != want.Text ||
			r.Call.Bytes != want.Bytes || strings.Join(r.Call.Hosts, ",") != strings.Join(want.Hosts, ",") ||
			strings.Join(r.Call.Writes, ",") != strings.Join(want.Writes, ",") {
			t.Errorf("with call %v: folded %+v, want %+v", withCall, r.Call, want)
		}
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}
