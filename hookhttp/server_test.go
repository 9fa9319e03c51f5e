package hookhttp

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A local process that opens connections and sends nothing cannot hold
// more than MaxConnections: one past it is closed at once, and once they
// go the endpoint answers again.
func TestConnectionsAreCapped(t *testing.T) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ep := Endpoint{Port: l.Addr().(*net.TCPAddr).Port, Token: strings.Repeat("ab", 32)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&Server{Endpoint: ep}).Serve(ctx, l) }()
	defer func() { cancel(); <-done }()
	var held []net.Conn
	for range MaxConnections {
		c, err := net.Dial("tcp4", ep.Addr())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	// Let the server see every held connection before the one past the cap.
	for _, c := range held[:1] {
		c.Write([]byte("GET " + Path + " HTTP/1.1\r\nHost: " + ep.Addr() + "\r\n\r\n"))
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 12)
		if _, err := io.ReadFull(c, buf); err != nil || !strings.Contains(string(buf), "405") {
			t.Fatalf("a held connection was not served: %q %v", buf, err)
		}
	}
	extra, err := net.Dial("tcp4", ep.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	extra.SetReadDeadline(time.Now().Add(10 * time.Second))
	extra.Write([]byte("GET " + Path + " HTTP/1.1\r\nHost: " + ep.Addr() + "\r\n\r\n"))
	if n, err := extra.Read(make([]byte, 64)); err == nil {
		t.Fatalf("a connection past the cap was served (%d bytes)", n)
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("a connection past the cap was kept open")
	}
	for _, c := range held {
		c.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodPost, "http://"+ep.Addr()+Path, strings.NewReader("{}"))
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("after the cap: status %d, want 401", resp.StatusCode)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the endpoint did not answer again after the held connections closed: %v", err)
		}
		time.Sleep(10 * time.Millisecond) // the server notices the closed connections
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
