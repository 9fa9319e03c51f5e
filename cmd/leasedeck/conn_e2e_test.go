package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The socket limits in policy.json bind a real `serve`: one connection
// past max_connections is served in the place of the one idle longest,
// which is closed, and a connection silent for connection_idle_ms is
// closed.
func TestServeConnectionLimitsFromPolicy(t *testing.T) {
	w := newWorkspace(t)
	pol := filepath.Join(w.dir, ".leasedeck", "policy.json")
	b, _ := os.ReadFile(pol)
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	p["max_connections"], p["connection_idle_ms"] = 2, 3000
	b, _ = json.Marshal(p)
	os.WriteFile(pol, b, 0o600)
	w.serve()

	answer := func(c net.Conn, r *bufio.Reader) map[string]any {
		t.Helper()
		line, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		var m map[string]any
		json.Unmarshal(line, &m)
		return m
	}
	type conn struct {
		c net.Conn
		r *bufio.Reader
	}
	var held []conn
	for range 2 {
		c, err := net.Dial("unix", w.sock())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(20 * time.Second))
		c.Write([]byte(`{"op":"status"}` + "\n"))
		r := bufio.NewReader(c)
		if m := answer(c, r); m["ok"] != true {
			t.Fatalf("within the cap: %v", m)
		}
		held = append(held, conn{c, r})
	}
	// Past the cap a new client is refused while the held connections
	// have just been answered, then served in the place of the one idle
	// longest (a second without a call), which is closed.
	var extra net.Conn
	var xr *bufio.Reader
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("unix", w.sock())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReader(c)
		c.Write([]byte(`{"op":"status"}` + "\n"))
		m := answer(c, r)
		if m["ok"] == true {
			extra, xr = c, r
			defer c.Close()
			break
		}
		if e, _ := m["error"].(map[string]any); e == nil || e["code"] != "too_many_connections" || time.Now().After(deadline) {
			t.Fatalf("past the cap: %v", m)
		}
		if _, err := r.ReadByte(); err == nil {
			t.Fatalf("a refused connection stays open")
		}
		// Each refused client is closed here and the next one comes a
		// little later: a loop that kept them all ran out of descriptors
		// before the held connections had been idle a second.
		c.Close()
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := held[0].r.ReadByte(); err != io.EOF {
		t.Fatalf("past the cap the idlest connection stays open: %v", err)
	}
	for _, h := range append(held[1:], conn{extra, xr}) {
		start := time.Now()
		if _, err := h.r.ReadByte(); err != io.EOF {
			t.Fatalf("a silent connection: %v, want EOF", err)
		}
		if el := time.Since(start); el > 15*time.Second {
			t.Fatalf("a silent connection closed after %v", el)
		}
	}
}
