// Package egress is the forward proxy a confined process tree reaches the
// network through. Landlock lets the tree connect to this proxy's port and
// nothing else; the proxy answers HTTP CONNECT (tunnels, so HTTPS) and
// plain HTTP requests in absolute form, lets through only the hosts the
// lease's allow.hosts contain and its deny.hosts do not (the gate's host
// rules), and reports every connection, allowed or refused, with the
// bytes it carried.
//
// It is hand-written over net/http's request parser rather than built on
// net/http/httputil.ReverseProxy: a forward proxy's CONNECT tunnel and its
// per-connection decision and byte counts are most of the work, and
// ReverseProxy covers neither.
package egress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/leasedeck/leasedeck/registry/resources"
)

// Rules decide which hosts are reachable: contained by an allow entry and
// by no deny entry (deny beats allow).
type Rules struct {
	Allow []string
	Deny  []string
}

// Decide answers whether host may be reached, and why not.
func (r Rules) Decide(host string) (bool, string) {
	h, err := resources.HostOf(host)
	if err != nil {
		return false, "unreadable host: " + err.Error()
	}
	for _, d := range r.Deny {
		if resources.HostContains(d, h) {
			return false, fmt.Sprintf("host %s is denied by deny.hosts entry %q", h, d)
		}
	}
	for _, a := range r.Allow {
		if resources.HostContains(a, h) {
			return true, ""
		}
	}
	return false, fmt.Sprintf("host %s is not in allow.hosts", h)
}

// Event is one connection as the proxy saw it.
type Event struct {
	Host      string
	Port      int
	Method    string // CONNECT, or the HTTP method
	Allowed   bool
	Reason    string // why it was refused
	BytesUp   int64  // from the client to the host
	BytesDown int64  // from the host to the client
}

// Reporter receives connections. Decided is called before an allowed
// connection is opened: an error refuses it (what cannot be journaled is
// not let through). Closed is called when it ends.
type Reporter interface {
	Decided(Event) error
	Closed(Event)
}

// Proxy is one listening proxy.
type Proxy struct {
	Rules    Rules
	Reporter Reporter
	// Dial opens the upstream connection (a net.Dialer's by default).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)

	l     net.Listener
	wg    sync.WaitGroup
	slots chan struct{}
	open  atomic.Int64
}

// maxConns bounds the connections served at once; more wait for a slot.
const maxConns = 256

// headTimeout bounds reading a request's head.
const headTimeout = 30 * time.Second

// Listen opens the proxy on a loopback port chosen by the kernel.
func Listen(rules Rules, rep Reporter) (*Proxy, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("egress proxy: %w", err)
	}
	p := &Proxy{Rules: rules, Reporter: rep, l: l, slots: make(chan struct{}, maxConns)}
	p.Dial = (&net.Dialer{Timeout: 15 * time.Second}).DialContext
	return p, nil
}

// Addr is the proxy's address (127.0.0.1:port).
func (p *Proxy) Addr() string { return p.l.Addr().String() }

// Port is the proxy's TCP port.
func (p *Proxy) Port() uint16 { return uint16(p.l.Addr().(*net.TCPAddr).Port) }

// URL is the value for HTTP_PROXY and friends.
func (p *Proxy) URL() string { return "http://" + p.Addr() }

// Serve accepts connections until ctx ends, then waits for the open ones.
func (p *Proxy) Serve(ctx context.Context) {
	go func() {
		<-ctx.Done()
		p.l.Close()
	}()
	for {
		c, err := p.l.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				break
			}
			continue
		}
		p.slots <- struct{}{}
		p.wg.Add(1)
		go func() {
			defer func() { <-p.slots; p.wg.Done() }()
			p.serve(ctx, c)
		}()
	}
	p.wg.Wait()
}

func (p *Proxy) serve(ctx context.Context, c net.Conn) {
	defer c.Close()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// When the run ends, the tunnel ends.
	defer context.AfterFunc(cctx, func() { c.SetDeadline(time.Now()) })()
	c.SetReadDeadline(time.Now().Add(headTimeout))
	br := bufio.NewReader(c)
	req, err := http.ReadRequest(br)
	if err != nil {
		return
	}
	c.SetReadDeadline(time.Time{})
	host, port, err := target(req)
	ev := Event{Host: host, Port: port, Method: req.Method}
	if err != nil {
		ev.Reason = err.Error()
		p.refuse(c, ev, http.StatusBadRequest)
		return
	}
	if ok, why := p.Rules.Decide(host); !ok {
		ev.Reason = why
		p.refuse(c, ev, http.StatusForbidden)
		return
	}
	up, err := p.dialChecked(cctx, host, port)
	if err != nil {
		ev.Reason = err.Error()
		p.refuse(c, ev, http.StatusBadGateway)
		return
	}
	defer up.Close()
	defer context.AfterFunc(cctx, func() { up.SetDeadline(time.Now()) })()
	ev.Allowed = true
	if err := p.Reporter.Decided(ev); err != nil {
		ev.Allowed, ev.Reason = false, "the connection could not be journaled: "+err.Error()
		writeStatus(c, http.StatusServiceUnavailable, ev.Reason)
		return
	}
	if req.Method == http.MethodConnect {
		io.WriteString(c, "HTTP/1.1 200 Connection Established\r\n\r\n")
		ev.BytesUp, ev.BytesDown = pipe(c, br, up)
	} else {
		ev.BytesUp, ev.BytesDown = forward(c, req, up)
	}
	p.Reporter.Closed(ev)
}

// refuse answers a refused request and reports it.
func (p *Proxy) refuse(c net.Conn, ev Event, code int) {
	ev.Allowed = false
	if err := p.Reporter.Decided(ev); err != nil {
		ev.Reason += " (and the refusal could not be journaled: " + err.Error() + ")"
	}
	writeStatus(c, code, "leasedeck egress: "+ev.Reason)
}

func writeStatus(c net.Conn, code int, msg string) {
	msg = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, msg)
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nConnection: close\r\nX-Leasedeck-Egress: refused\r\nContent-Length: %d\r\n\r\n%s\n",
		code, http.StatusText(code), len(msg)+1, msg)
}

// target is the host and port a request asks for: CONNECT's authority,
// or an absolute-form URL's host (an origin-form request names no host
// the proxy could decide on).
func target(req *http.Request) (string, int, error) {
	authority, defPort := req.Host, 80
	if req.Method == http.MethodConnect {
		authority, defPort = req.RequestURI, 443
	} else {
		if req.URL == nil || !req.URL.IsAbs() || req.URL.Host == "" {
			return "", 0, errors.New("a request to the proxy must name its URL in absolute form")
		}
		if req.URL.Scheme != "http" {
			return "", 0, fmt.Errorf("scheme %q is not proxied in plain form; use CONNECT", req.URL.Scheme)
		}
		authority = req.URL.Host
	}
	host, portStr, err := net.SplitHostPort(authority)
	if err != nil {
		if req.Method == http.MethodConnect {
			return authority, 0, fmt.Errorf("CONNECT %q names no port", authority)
		}
		host, portStr = strings.Trim(authority, "[]"), strconv.Itoa(defPort)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 1 || port > 65535 {
		return host, 0, fmt.Errorf("invalid port %q", portStr)
	}
	if host == "" {
		return "", port, errors.New("the request names no host")
	}
	return host, port, nil
}

// dialChecked resolves host and connects to one of its addresses. A name
// that resolves to a loopback, link-local or unspecified address is
// refused unless the lease allowed that address (or "localhost") by
// itself: otherwise any allowed name could be pointed at a local service
// by whoever controls its DNS.
func (p *Proxy) dialChecked(ctx context.Context, host string, port int) (net.Conn, error) {
	h, _ := resources.HostOf(host)
	literal := net.ParseIP(h) != nil || h == "localhost"
	addrs := []string{h}
	if !literal {
		ips, err := net.DefaultResolver.LookupIPAddr(ctx, h)
		if err != nil {
			return nil, fmt.Errorf("cannot resolve %s: %v", h, err)
		}
		addrs = addrs[:0]
		for _, ip := range ips {
			if ip.IP.IsLoopback() || ip.IP.IsLinkLocalUnicast() || ip.IP.IsUnspecified() || ip.IP.IsLinkLocalMulticast() {
				return nil, fmt.Errorf("%s resolves to the local address %s, which the lease does not name", h, ip.IP)
			}
			addrs = append(addrs, ip.IP.String())
		}
	}
	var last error
	for _, a := range addrs {
		c, err := p.Dial(ctx, "tcp", net.JoinHostPort(a, strconv.Itoa(port)))
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, fmt.Errorf("cannot reach %s:%d: %v", h, port, last)
}

// pipe copies both ways until either side ends; it answers the bytes
// carried up (client → host, including what was already buffered) and
// down.
func pipe(c net.Conn, br *bufio.Reader, up net.Conn) (int64, int64) {
	var upN, downN int64
	done := make(chan struct{})
	go func() {
		downN, _ = io.Copy(c, up)
		closeWrite(c)
		close(done)
	}()
	upN, _ = io.Copy(up, br)
	closeWrite(up)
	<-done
	return upN, downN
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
	}
}

// forward sends one plain HTTP request upstream in origin form, without
// the hop-by-hop and proxy headers, and copies the response back; the
// connection then closes (one request per connection keeps the decision
// per request exact).
func forward(c net.Conn, req *http.Request, up net.Conn) (int64, int64) {
	req.Header.Del("Proxy-Authorization")
	req.Header.Del("Proxy-Connection")
	req.Close = true
	req.RequestURI = ""
	cw := &countWriter{w: up}
	if err := req.Write(cw); err != nil {
		return cw.n, 0
	}
	resp, err := http.ReadResponse(bufio.NewReader(up), req)
	if err != nil {
		writeStatus(c, http.StatusBadGateway, "leasedeck egress: bad answer from upstream: "+err.Error())
		return cw.n, 0
	}
	defer resp.Body.Close()
	resp.Close = true
	dw := &countWriter{w: c}
	resp.Write(dw)
	return cw.n, dw.n
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
