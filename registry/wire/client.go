package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/leasedeck/leasedeck/unixsock"
)

// Client speaks the protocol over one connection, one message at a time;
// safe for concurrent use (calls are serialised).
type Client struct {
	mu       sync.Mutex
	conn     unixsock.Conn
	r        *bufio.Reader
	next     int
	deadline time.Time
	broken   error // set when a call was abandoned mid-answer

	token      string
	capability string
	runTicket  string
}

// Dial connects to the registry socket at path within timeout. Any
// failure wraps ErrUnreachable.
func Dial(path string, timeout time.Duration) (*Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	c, err := unixsock.Dial(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnreachable, path, err)
	}
	return NewClient(c), nil
}

// NewClient speaks the protocol over an open connection.
func NewClient(conn unixsock.Conn) *Client { return NewClientSize(conn, 64<<10) }

// NewClientSize is NewClient reading through a buffer of size bytes
// (answers of any length are read whole either way): a process that
// exchanges a few short messages (a hook) need not allocate and zero a
// large one.
func NewClientSize(conn unixsock.Conn, size int) *Client {
	return &Client{conn: conn, r: bufio.NewReaderSize(conn, size)}
}

// SetToken makes every later message carry the operator token.
func (c *Client) SetToken(token string) {
	c.mu.Lock()
	c.token = token
	c.mu.Unlock()
}

// SetCapability makes every later message carry a session capability.
func (c *Client) SetCapability(capability string) {
	c.mu.Lock()
	c.capability = capability
	c.mu.Unlock()
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// SetDeadline bounds every later call (zero: none). A call's context may
// bound it further.
func (c *Client) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline = t
	return c.conn.SetDeadline(t)
}

// call sends one message and decodes its answer. An answered error is
// *Error; no answer wraps ErrUnreachable.
func call[P, R any](ctx context.Context, c *Client, op Op, params P) (R, error) {
	var out R
	body, err := encodeParams(params)
	if err != nil {
		return out, fmt.Errorf("%s: %v", op, err)
	}
	if len(body) < 2 || body[0] != '{' {
		return out, fmt.Errorf("%s: params must encode as a JSON object", op)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return out, c.broken
	}
	c.next++
	msg := make([]byte, 0, 128+len(c.token)+len(c.capability)+len(c.runTicket)+len(body))
	msg = appendEnvelope(msg, c.next, op, c.token, c.capability, c.runTicket)
	if !bytes.Equal(body, []byte("{}")) {
		msg = append(msg, ',')
		msg = append(msg, body[1:len(body)-1]...)
	}
	msg = append(msg, '}', '\n')

	line, err := c.roundTripWithin(ctx, msg)
	if err != nil {
		if cerr := ctxErr(ctx); cerr != nil {
			err = fmt.Errorf("%w: %s: %w", ErrUnreachable, op, cerr)
		}
		// The answer may still arrive; this connection is out of step.
		c.broken = err
		return out, err
	}
	if fast, ok := any(&out).(wireResult); ok {
		return out, readAnswer(line, op, fast)
	}
	var resp struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
		Error  *Error          `json:"error"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		return out, fmt.Errorf("%w: malformed answer to %s: %v", ErrUnreachable, op, err)
	}
	if !resp.OK {
		if resp.Error == nil {
			return out, &Error{Code: Internal, Message: "the registry refused without saying why"}
		}
		return out, resp.Error
	}
	if len(resp.Result) > 0 {
		if err := json.Unmarshal(resp.Result, &out); err != nil {
			return out, fmt.Errorf("%w: answer to %s: %v", ErrUnreachable, op, err)
		}
	}
	return out, nil
}

// roundTripWithin bounds one round trip by ctx as well as by the
// client's deadline: the context's deadline becomes the connection's, and
// cancelling it interrupts a blocked read.
func (c *Client) roundTripWithin(ctx context.Context, msg []byte) ([]byte, error) {
	if ctx.Done() == nil {
		return c.roundTrip(msg)
	}
	if d, ok := ctx.Deadline(); ok && (c.deadline.IsZero() || d.Before(c.deadline)) {
		c.conn.SetDeadline(d)
	}
	interrupted := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		c.conn.SetDeadline(time.Unix(1, 0))
		close(interrupted)
	})
	line, err := c.roundTrip(msg)
	if !stop() {
		<-interrupted
	}
	c.conn.SetDeadline(c.deadline)
	return line, err
}

func (c *Client) roundTrip(msg []byte) ([]byte, error) {
	if _, err := c.conn.Write(msg); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, fmt.Errorf("%w: %v", ErrUnreachable, err)
		}
		return nil, fmt.Errorf("%w: %w: %v", ErrUnreachable, ErrConnectionLost, err)
	}
	line, tooLarge, err := ReadMessage(c.r, MaxAnswer)
	if tooLarge {
		return nil, fmt.Errorf("%w: answer larger than %d MiB", ErrUnreachable, MaxAnswer>>20)
	}
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, fmt.Errorf("%w: no answer in time: %v", ErrUnreachable, err)
		}
		return nil, fmt.Errorf("%w: %w: %v", ErrUnreachable, ErrConnectionLost, err)
	}
	return line, nil
}

// ctxErr is ctx's error, or DeadlineExceeded as soon as its deadline has
// passed (the connection's deadline, set to the same instant, may fire
// before the context's timer does).
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}
