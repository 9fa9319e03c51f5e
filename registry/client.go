package registry

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// ErrUnreachable wraps every failure to reach the registry's socket, so
// callers can tell "no registry" (exit 4, fail closed) from an answer.
var ErrUnreachable = errors.New("registry unreachable")

// Client speaks the socket API. One connection, one request at a time;
// safe for concurrent use (calls are serialised).
type Client struct {
	mu    sync.Mutex
	conn  net.Conn
	r     *bufio.Reader
	Token string // operator token, sent with every request when set
	next  int
}

// Dial connects to the registry socket.
func Dial(path string, timeout time.Duration) (*Client, error) {
	c, err := net.DialTimeout("unix", path, timeout)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnreachable, path, err)
	}
	return &Client{conn: c, r: bufio.NewReaderSize(c, 64<<10)}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Call sends one request and decodes the result into out (may be nil).
// A registry error comes back as *RemoteError.
func (c *Client) Call(req map[string]any, out any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	req["id"] = c.next
	if c.Token != "" {
		if _, set := req["token"]; !set {
			req["token"] = c.Token
		}
	}
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := c.conn.Write(b); err != nil {
		return fmt.Errorf("%w: %v", ErrUnreachable, err)
	}
	line, tooLarge, err := readLine(c.r, 64<<20)
	if err != nil || tooLarge {
		return fmt.Errorf("%w: connection lost: %v", ErrUnreachable, err)
	}
	var resp struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
		Error  *RemoteError    `json:"error"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		return fmt.Errorf("malformed answer from the registry: %v", err)
	}
	if !resp.OK {
		if resp.Error == nil {
			return &RemoteError{Code: CodeInternal, Message: "the registry refused without saying why"}
		}
		return resp.Error
	}
	if out != nil && len(resp.Result) > 0 {
		return json.Unmarshal(resp.Result, out)
	}
	return nil
}

// SetDeadline bounds the next calls (zero: none).
func (c *Client) SetDeadline(t time.Time) error { return c.conn.SetDeadline(t) }
