package registry

import (
	"io"
	"strings"
	"testing"
	"time"
)

// A client that opens as many connections as the registry serves and
// says nothing on them (or starts a line it never ends) must not shut
// every other client out: at the cap, the connection idle longest is
// closed to make room, and a new client is served.
func TestIdleConnectionsDoNotShutOthersOut(t *testing.T) {
	f := newFixture(t)
	sock := servedWith(t, f, ConnLimits{MaxConnections: 4, EvictAfter: time.Nanosecond})
	var squatters []*rawConn
	for i := range 4 {
		r := dialRaw(t, sock)
		if i%2 == 1 {
			r.c.Write([]byte(`{"op":`)) // a line it never ends
		}
		squatters = append(squatters, r)
	}
	for i := range 6 {
		r := dialRaw(t, sock)
		if a := r.send(`{"op":"status"}`); !a.OK {
			t.Fatalf("client %d, with every slot held by idle connections: %+v", i, a)
		}
		r.c.Close()
	}
	// The oldest, which never said anything, made room first.
	squatters[0].c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := squatters[0].r.ReadByte(); err != io.EOF {
		t.Fatalf("the idlest connection was not closed to make room: %v", err)
	}
}

// When every connection has a call being answered, none is closed: the
// new one is told too_many_connections.
func TestBusyConnectionsAreNotClosedForANewOne(t *testing.T) {
	f := newFixture(t)
	sock := servedWith(t, f, ConnLimits{MaxConnections: 2, WriteTimeout: 5 * time.Second, EvictAfter: time.Nanosecond})
	// A client that sends more than it reads keeps a call being answered:
	// the registry is writing an answer the client does not read.
	flood := strings.Repeat(`{"op":"status"}`+"\n", 4000)
	for range 2 {
		r := dialRaw(t, sock)
		go r.c.Write([]byte(flood))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := dialRaw(t, sock)
		r.c.Write([]byte(`{"op":"status"}` + "\n"))
		b, err := r.r.ReadBytes('\n')
		if err == nil && strings.Contains(string(b), "too_many_connections") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a busy registry answered %s %v, want too_many_connections", b, err)
		}
		r.c.Close()
	}
}
