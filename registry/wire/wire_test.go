package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

func TestDocKeepsNumbersAndRefusesDuplicates(t *testing.T) {
	var p GateParams
	if err := json.Unmarshal([]byte(`{"tool":"Bash","input":{"n":12345678901234567890,"s":"x"}}`), &p); err != nil {
		t.Fatal(err)
	}
	obj, ok := p.Input.Object()
	if !ok || obj["n"] != json.Number("12345678901234567890") {
		t.Fatalf("input %#v", p.Input.V)
	}
	if err := json.Unmarshal([]byte(`{"input":{"a":1,"a":2}}`), &p); err == nil {
		t.Fatal("a duplicate member inside a document was accepted")
	}
	var q IssueParams
	json.Unmarshal([]byte(`{"manifest":null}`), &q)
	if !q.Manifest.Set || q.Manifest.V != nil {
		t.Fatalf("null manifest: %+v", q.Manifest)
	}
	var absent IssueParams
	json.Unmarshal([]byte(`{}`), &absent)
	if absent.Manifest.Set {
		t.Fatal("absent manifest reported set")
	}
	if _, ok := (Doc{V: []any{1.0}, Set: true}).Object(); ok {
		t.Fatal("an array is not a tool input")
	}
	b, _ := json.Marshal(IssueParams{Parent: "p"})
	if string(b) != `{"parent":"p"}` {
		t.Fatalf("unset doc marshalled: %s", b)
	}
	b, _ = json.Marshal(IssueParams{Manifest: DocOf(json.RawMessage(`{"x":1}`))})
	if string(b) != `{"manifest":{"x":1}}` {
		t.Fatalf("raw doc marshalled: %s", b)
	}
}

func TestReadMessage(t *testing.T) {
	in := "short\r\n" + strings.Repeat("x", 100) + "\nnext\nlast-without-newline"
	r := bufio.NewReaderSize(strings.NewReader(in), 16)
	want := []struct {
		msg      string
		tooLarge bool
	}{{"short", false}, {"", true}, {"next", false}, {"last-without-newline", false}}
	for _, w := range want {
		msg, tooLarge, err := ReadMessage(r, 50)
		if err != nil || string(msg) != w.msg || tooLarge != w.tooLarge {
			t.Fatalf("got %q %v %v, want %q %v", msg, tooLarge, err, w.msg, w.tooLarge)
		}
	}
	if _, _, err := ReadMessage(r, 50); err == nil {
		t.Fatal("read past the end")
	}
}

func FuzzReadMessage(f *testing.F) {
	f.Add([]byte("a\nb\r\n"), 4)
	f.Add([]byte(strings.Repeat("y", 70)+"\n"), 8)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 1 || max > 1<<12 {
			return
		}
		r := bufio.NewReaderSize(strings.NewReader(string(data)), 16)
		for range len(data) + 1 {
			msg, tooLarge, err := ReadMessage(r, max)
			if err != nil {
				return
			}
			if tooLarge && msg != nil || len(msg) > max || strings.ContainsAny(string(msg), "\n") {
				t.Fatalf("message %q (tooLarge %v) with max %d", msg, tooLarge, max)
			}
		}
	})
}

// The client writes the envelope and the params as one flat object, with
// the token and capability it was given, and reads the answer back.
func TestClientMessageShape(t *testing.T) {
	ours, theirs := net.Pipe()
	defer ours.Close()
	c := NewClient(ours)
	c.SetToken("tok")
	c.SetCapability("cap")
	got := make(chan map[string]any, 2)
	go func() {
		r := bufio.NewReader(theirs)
		for i := 0; i < 2; i++ {
			line, _, err := ReadMessage(r, MaxMessage)
			if err != nil {
				return
			}
			var m map[string]any
			json.Unmarshal(line, &m)
			got <- m
			if i == 0 {
				theirs.Write([]byte(`{"id":1,"ok":true,"result":{"revoked":["a","b"],"future":1}}` + "\n"))
			} else {
				theirs.Write([]byte(`{"id":2,"ok":false,"error":{"code":"unknown_parent","message":"no parent"}}` + "\n"))
			}
		}
	}()
	res, err := c.Revoke(context.Background(), RevokeParams{LeaseID: "L", Reason: "r"})
	if err != nil || len(res.Revoked) != 2 {
		t.Fatalf("revoke: %+v %v", res, err)
	}
	m := <-got
	if m["op"] != "revoke" || m["lease_id"] != "L" || m["reason"] != "r" || m["token"] != "tok" || m["capability"] != "cap" || m["id"] != 1.0 {
		t.Fatalf("message %v", m)
	}
	_, err = c.Status(context.Background())
	if CodeOf(err) != UnknownParent || !strings.Contains(err.Error(), "no parent") {
		t.Fatalf("status error: %v", err)
	}
	if m := <-got; m["op"] != "status" || len(m) != 4 {
		t.Fatalf("status message %v", m)
	}
	theirs.Close()
	if _, err := c.Leases(context.Background()); !errors.Is(err, ErrUnreachable) || !errors.Is(err, ErrConnectionLost) {
		t.Fatalf("closed peer: %v", err)
	}
}

// A call that runs out of time is not a lost connection: a hook does not
// ask again for it.
func TestTimeoutIsNotConnectionLost(t *testing.T) {
	ours, theirs := net.Pipe()
	defer theirs.Close()
	go io.Copy(io.Discard, theirs)
	c := NewClient(ours)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := c.Leases(ctx)
	if !errors.Is(err, ErrUnreachable) || errors.Is(err, ErrConnectionLost) {
		t.Fatalf("timed out call: %v", err)
	}
}

func TestDialUnreachable(t *testing.T) {
	if _, err := Dial("/nonexistent/registry.sock", 0); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("dial: %v", err)
	}
}
