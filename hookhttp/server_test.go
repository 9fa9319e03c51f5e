package hookhttp

import (
	"bufio"
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// serveTest serves s on a fresh loopback port until the test ends.
func serveTest(t *testing.T, s *Server) Endpoint {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Endpoint = Endpoint{Port: l.Addr().(*net.TCPAddr).Port, Token: strings.Repeat("ab", 32)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, l) }()
	t.Cleanup(func() { cancel(); <-done })
	return s.Endpoint
}

// holdConnections opens n connections that send nothing. The server
// accepts connections in the order they were made, so it has seen them
// all by the time it sees the next.
func holdConnections(t *testing.T, ep Endpoint, n int) []net.Conn {
	t.Helper()
	var held []net.Conn
	for range n {
		c, err := net.Dial("tcp4", ep.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		held = append(held, c)
	}
	return held
}

// status sends one request on a new connection and returns its status
// line, or the error that ended the connection.
func status(ep Endpoint, req string) (string, error) {
	c, err := net.Dial("tcp4", ep.Addr())
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte(req))
	return bufio.NewReader(c).ReadString('\n')
}

// A local process that opens connections and sends nothing cannot hold
// more than MaxConnections: past the cap, while every held one is younger
// than EvictAfter (a request may be on its way on it), the new one is
// closed at once.
func TestConnectionsAreCapped(t *testing.T) {
	ep := serveTest(t, &Server{EvictAfter: time.Hour})
	holdConnections(t, ep, MaxConnections)
	line, err := status(ep, "GET "+Path+" HTTP/1.1\r\nHost: "+ep.Addr()+"\r\n\r\n")
	if err == nil {
		t.Fatalf("a connection past the cap was served: %q", line)
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("a connection past the cap was kept open")
	}
}

// Nor can it shut the client's hooks out by holding them: once they have
// been idle EvictAfter, a new connection past the cap closes the idlest,
// and is served, every time, however many the process holds (it needs no
// token to connect, and requests it makes without one do not count as
// activity).
func TestIdleConnectionsMakeRoom(t *testing.T) {
	ep := serveTest(t, &Server{EvictAfter: time.Nanosecond})
	held := holdConnections(t, ep, MaxConnections+8)
	// Refused requests keep the squatter's connections busy, not live.
	for _, c := range held[1:9] {
		c.Write([]byte("POST " + Path + " HTTP/1.1\r\nHost: " + ep.Addr() + "\r\nContent-Length: 0\r\n\r\n"))
	}
	for i := range 3 {
		line, err := status(ep, "POST "+Path+" HTTP/1.1\r\nHost: "+ep.Addr()+"\r\nContent-Length: 2\r\n\r\n{}")
		if err != nil || !strings.Contains(line, " 401 ") {
			t.Fatalf("request %d past the cap: %q %v, want a 401 answer", i, line, err)
		}
	}
}

// A payload that trickles is cut off when its time is up, and what it
// reserved is given back: the same caller can then send one that arrives.
func TestSlowPayloadIsCutOff(t *testing.T) {
	ep := serveTest(t, &Server{BodyTimeout: 100 * time.Millisecond})
	c, err := net.Dial("tcp4", ep.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte("POST " + Path + " HTTP/1.1\r\nHost: " + ep.Addr() + "\r\nAuthorization: Bearer " + ep.Token +
		"\r\nContent-Length: 4096\r\n\r\n{\"a\":"))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.Contains(line, " 413 ") {
		t.Fatalf("a trickled payload: %q %v, want 413", line, err)
	}
}

// A payload must say its length, within MaxPayload, before anything of it
// is held: a chunked body and an announced giant are refused unread.
func TestPayloadsAreBounded(t *testing.T) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ep := Endpoint{Port: l.Addr().(*net.TCPAddr).Port, Token: strings.Repeat("cd", 32)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&Server{Endpoint: ep}).Serve(ctx, l) }()
	defer func() { cancel(); <-done }()
	head := "POST " + Path + " HTTP/1.1\r\nHost: " + ep.Addr() + "\r\nAuthorization: Bearer " + ep.Token + "\r\n"
	for name, c := range map[string]struct {
		req  string
		want string
	}{
		"chunked":   {head + "Transfer-Encoding: chunked\r\n\r\n5\r\n{\"a\":\r\n0\r\n\r\n", " 411 "},
		"too large": {head + "Content-Length: " + strconv.Itoa(MaxPayload+1) + "\r\n\r\n{", " 413 "},
	} {
		t.Run(name, func(t *testing.T) {
			conn, err := net.Dial("tcp4", ep.Addr())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			conn.Write([]byte(c.req))
			line, err := bufio.NewReader(conn).ReadString('\n')
			if err != nil || !strings.Contains(line, c.want) {
				t.Fatalf("answer %q (%v), want%s", line, err, c.want)
			}
		})
	}
}
