package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorder keeps every report; fail makes Decided refuse.
type recorder struct {
	mu      sync.Mutex
	decided []Event
	closed  []Event
	fail    bool
	closedC chan Event
}

func (r *recorder) Decided(ev Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.decided = append(r.decided, ev)
	if r.fail && ev.Allowed {
		return errors.New("journal down")
	}
	return nil
}

func (r *recorder) Closed(ev Event) {
	r.mu.Lock()
	r.closed = append(r.closed, ev)
	r.mu.Unlock()
	if r.closedC != nil {
		r.closedC <- ev
	}
}

func startProxy(t *testing.T, rules Rules, rep Reporter) *Proxy {
	t.Helper()
	p, err := Listen(rules, rep)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Serve(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return p
}

func upstream(t *testing.T) (*httptest.Server, string) {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s", r.URL.Path)
	}))
	t.Cleanup(s.Close)
	_, port, _ := net.SplitHostPort(s.Listener.Addr().String())
	return s, port
}

func client(p *Proxy) *http.Client {
	u, _ := url.Parse(p.URL())
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u), DisableKeepAlives: true}, Timeout: 10 * time.Second}
}

func TestRulesDecide(t *testing.T) {
	r := Rules{Allow: []string{"*.example.com", "127.0.0.1", "api.test"}, Deny: []string{"evil.example.com"}}
	for _, tc := range []struct {
		host string
		ok   bool
	}{
		{"a.example.com", true}, {"A.Example.COM.", true}, {"example.com", false}, {"evil.example.com", false},
		{"127.0.0.1", true}, {"127.1", true}, {"0x7f.0.0.1", true}, {"localhost", false}, {"api.test", true},
		{"api.test.evil", false}, {"", false}, {"a b", false}, {"[::1]", false},
	} {
		if ok, why := r.Decide(tc.host); ok != tc.ok {
			t.Errorf("Decide(%q) = %v (%s), want %v", tc.host, ok, why, tc.ok)
		}
	}
}

// Plain HTTP to an allowed host goes through with its bytes counted; an
// unlisted host is refused with 403 and never dialled.
func TestProxyPlainHTTP(t *testing.T) {
	_, port := upstream(t)
	rec := &recorder{closedC: make(chan Event, 4)}
	p := startProxy(t, Rules{Allow: []string{"127.0.0.1"}}, rec)
	resp, err := client(p).Get("http://127.0.0.1:" + port + "/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "hello /x" {
		t.Fatalf("allowed fetch: %d %q", resp.StatusCode, body)
	}
	ev := <-rec.closedC
	if !ev.Allowed || ev.Host != "127.0.0.1" || ev.BytesUp == 0 || ev.BytesDown == 0 {
		t.Errorf("closed event %+v", ev)
	}
	resp, err = client(p).Get("http://unlisted.example/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Leasedeck-Egress") != "refused" {
		t.Errorf("unlisted host: %d", resp.StatusCode)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	last := rec.decided[len(rec.decided)-1]
	if last.Allowed || last.Host != "unlisted.example" || !strings.Contains(last.Reason, "not in allow.hosts") {
		t.Errorf("refusal event %+v", last)
	}
}

// CONNECT tunnels to an allowed host:port and refuses the rest.
func TestProxyConnect(t *testing.T) {
	_, port := upstream(t)
	rec := &recorder{closedC: make(chan Event, 4)}
	p := startProxy(t, Rules{Allow: []string{"127.0.0.1"}, Deny: []string{"blocked.test"}}, rec)
	for _, tc := range []struct {
		target string
		status int
	}{
		{"127.0.0.1:" + port, 200}, {"blocked.test:443", 403}, {"other.test:443", 403}, {"127.0.0.1", 400}, {"127.0.0.1:99999", 400},
	} {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", tc.target, tc.target)
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
		if err != nil {
			t.Fatalf("%s: %v", tc.target, err)
		}
		if resp.StatusCode != tc.status {
			t.Errorf("CONNECT %s: %d, want %d", tc.target, resp.StatusCode, tc.status)
		}
		if tc.status == 200 {
			fmt.Fprintf(c, "GET /tunnel HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
			inner, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(inner.Body)
			if string(b) != "hello /tunnel" {
				t.Errorf("through the tunnel: %q", b)
			}
		}
		c.Close()
	}
	if ev := <-rec.closedC; !ev.Allowed || ev.Method != http.MethodConnect || ev.BytesDown == 0 {
		t.Errorf("tunnel closed event %+v", ev)
	}
}

// What cannot be journaled is not let through.
func TestProxyRefusesWhenTheJournalFails(t *testing.T) {
	_, port := upstream(t)
	p := startProxy(t, Rules{Allow: []string{"127.0.0.1"}}, &recorder{fail: true})
	resp, err := client(p).Get("http://127.0.0.1:" + port + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || strings.Contains(string(b), "hello") {
		t.Errorf("journal down: %d %q", resp.StatusCode, b)
	}
}

// A request in origin form (no absolute URL) names no host to decide on,
// and an https URL in plain form is refused: both get 400.
func TestProxyRefusesUndecidableRequests(t *testing.T) {
	p := startProxy(t, Rules{Allow: []string{"*"}}, &recorder{})
	for _, req := range []string{"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "GET https://a.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n"} {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, req)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%q: %d", req, resp.StatusCode)
		}
		c.Close()
	}
}

// Whatever bytes arrive, the proxy answers or closes; it never panics and
// keeps serving.
func FuzzProxyRequest(f *testing.F) {
	for _, s := range []string{"CONNECT a:1 HTTP/1.1\r\n\r\n", "GET http://x/ HTTP/1.1\r\n\r\n", "\r\n\r\n", "CONNECT [::1 HTTP/1.1\r\n\r\n",
		"GET http://127.0.0.1:0/ HTTP/1.0\r\n\r\n", "CONNECT :443 HTTP/1.1\r\n\r\n"} {
		f.Add(s)
	}
	p, err := Listen(Rules{Allow: []string{"only.test"}}, &recorder{})
	if err != nil {
		f.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go p.Serve(ctx)
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(2 * time.Second))
		io.WriteString(c, raw)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
		io.Copy(io.Discard, c)
		// Still serving.
		c2, err := net.Dial("tcp", p.Addr())
		if err != nil {
			t.Fatalf("the proxy stopped serving: %v", err)
		}
		c2.Close()
	})
}
