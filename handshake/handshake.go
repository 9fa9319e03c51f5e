// Package handshake lets a hook tell the workspace's real registry from a
// process squatting its socket path. The agent runs as the same user as
// the registry, so it can bind a socket wherever the registry's was (after
// `serve` died, say) and answer "allow" to everything. Two checks, both
// required where the OS supports them:
//
//   - the peer: the process at the other end of the socket (its kernel-
//     reported credentials) must be this user's, and on Linux the process
//     that holds the workspace's registry lock;
//   - a challenge: the hook sends a fresh nonce and the registry answers
//     with an HMAC of it (and of the workspace and its pid) under the
//     handshake secret, which lives in the state directory the gate denies
//     to every agent.
//
// A peer that fails either is a squatter: the hook denies, and says why.
package handshake

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/unixsock"
	"github.com/leasedeck/leasedeck/wirejson"
)

// Op is the socket op a registry answers the challenge on.
const Op = "hello"

// Answer is the registry's reply to a hello: who it is, the proof, and the
// policy it governs by (the hook takes the enforcement mode and the
// approval timeout from here, never from a file).
type Answer struct {
	Workspace         string `json:"workspace"`
	PID               int    `json:"pid"`
	Proof             string `json:"proof"`
	Mode              string `json:"mode"`
	PolicyHash        string `json:"policy_sha256,omitempty"`
	ApprovalTimeoutMs int64  `json:"approval_timeout_ms,omitempty"`
}

// Proof is the registry's answer to nonce: HMAC-SHA256 under key over the
// nonce, the workspace root and the registry's pid, so a proof cannot be
// replayed for another nonce, workspace or process.
func Proof(key []byte, nonce, workspace string, pid int) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("leasedeck hello v1\x00" + nonce + "\x00" + workspace + "\x00" + strconv.Itoa(pid)))
	return hex.EncodeToString(m.Sum(nil))
}

// NewNonce is a fresh 32-byte challenge, hex.
func NewNonce() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// SquatterError says why the process on the socket is not believed.
type SquatterError struct{ Why string }

func (e *SquatterError) Error() string {
	return "the process answering on the registry socket is not the workspace's registry (" + e.Why + "), so it is not believed"
}

// ErrNoRegistry means nothing answered on the socket in time.
var ErrNoRegistry = errors.New("no registry answered")

// HungError: a process that passed the peer check (on Linux, the holder
// of the registry lock) accepted the connection but did not answer the
// handshake before the deadline: a registry that is hung, stopped or
// overloaded, not one that is absent. It wraps ErrNoRegistry.
type HungError struct {
	Waited time.Duration // how long the answer was waited for
	Err    error
}

func (e *HungError) Error() string {
	return fmt.Sprintf("the process serving the registry socket accepted the connection but did not answer within %.1f s (%v)", e.Waited.Seconds(), e.Err)
}

func (e *HungError) Unwrap() []error { return []error{ErrNoRegistry, e.Err} }

// RefusedError: the process serving the socket (which passed the peer
// check) answered the handshake with an error, as the registry does past
// its connection cap. It names no registry as the real one: the refusal
// carries no proof.
type RefusedError struct{ Code, Message string }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("the process serving the registry socket refused the connection (%s: %s)", e.Code, e.Message)
}

// Target is the registry a hook expects.
type Target struct {
	Workspace string // the workspace root the registry must name
	Socket    string
	Lock      string // the registry lock its process must hold (checked where the OS can tell)
	Key       []byte // the handshake secret
	// PeerPID, when set, is the only process believed, on the kernel's
	// word (SO_PEERCRED), and the answer's proof is not checked: for a
	// caller that cannot read the secret but was told the registry's pid
	// by a trusted parent that checked it (a hook inside a confined run,
	// where the state directory is not writable, so nothing can bind the
	// socket there). Only where the OS names a socket's peer; a peer
	// outside the caller's pid namespace (reported as pid 0) is outside
	// the run's tree, so it is believed too.
	PeerPID int
	// Blocking dials with unixsock.DialBlocking: for a caller that does
	// one exchange at a time, bounded by deadlines only (a hook).
	Blocking bool
}

// Check verifies a hello answer for nonce from the process pid.
func (t Target) Check(a Answer, nonce string, peerPID int) error {
	if a.Workspace != t.Workspace {
		return &SquatterError{Why: fmt.Sprintf("it names workspace %q, not %q", a.Workspace, t.Workspace)}
	}
	if peerPID > 0 && a.PID != peerPID {
		return &SquatterError{Why: fmt.Sprintf("it says it is pid %d but the socket's peer is pid %d", a.PID, peerPID)}
	}
	switch {
	case t.PeerPID > 0:
		// 0: the peer is outside this process's pid namespace (a confined
		// run's tree has its own), so it is not a process of the tree.
		if peerPID != t.PeerPID && peerPID != 0 {
			return &SquatterError{Why: fmt.Sprintf("the socket's peer is pid %d, not the registry (pid %d) this run checked", peerPID, t.PeerPID)}
		}
	case !hmac.Equal([]byte(Proof(t.Key, nonce, t.Workspace, a.PID)), []byte(a.Proof)):
		return &SquatterError{Why: "it cannot prove it holds the workspace's handshake secret"}
	}
	if a.Mode != "enforce" && a.Mode != "observe" {
		return &SquatterError{Why: fmt.Sprintf("it answers an unknown enforcement mode %q", a.Mode)}
	}
	return nil
}

// Verify checks the peer of conn and runs the challenge on it, within
// ctx. It returns the registry's answer and the connection to go on with
// (conn, reading first anything read past the answer). A failed check is
// a *SquatterError; no answer in time wraps ErrNoRegistry.
func (t Target) Verify(ctx context.Context, conn unixsock.Conn) (unixsock.Conn, Answer, error) {
	r := bufio.NewReaderSize(conn, 4096)
	a, err := t.verify(ctx, conn, r)
	if err != nil {
		return nil, Answer{}, err
	}
	return &bufferedConn{Conn: conn, r: r}, a, nil
}

// bufferedConn is a connection whose first bytes were read ahead into r.
type bufferedConn struct {
	unixsock.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (t Target) verify(ctx context.Context, conn unixsock.Conn, r *bufio.Reader) (Answer, error) {
	var peer int
	var err error
	if t.PeerPID > 0 {
		peer, err = peerPID(conn)
	} else {
		peer, err = checkPeer(conn, t.Lock)
	}
	if err != nil {
		return Answer{}, err
	}
	nonce, err := NewNonce()
	if err != nil {
		return Answer{}, err
	}
	if d, ok := ctx.Deadline(); ok {
		conn.SetDeadline(d)
		defer conn.SetDeadline(time.Time{})
	}
	asked := time.Now()
	if _, werr := conn.Write(helloMessage(nonce)); werr != nil {
		// A registry past its cap may have answered and closed before
		// the hello went out: its refusal is still there to read.
		if line, err := readLine(r, 64<<10); err == nil {
			if rerr := refusal(line); rerr != nil {
				return Answer{}, rerr
			}
		}
		return Answer{}, fmt.Errorf("%w: %v", ErrNoRegistry, werr)
	}
	line, err := readLine(r, 64<<10)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return Answer{}, &HungError{Waited: time.Since(asked), Err: err}
	}
	if err != nil {
		return Answer{}, fmt.Errorf("%w: no answer to the handshake: %v", ErrNoRegistry, err)
	}
	a, ok, err := readHelloAnswer(line)
	if err != nil {
		return Answer{}, &SquatterError{Why: "its answer to the handshake is not the protocol's: " + err.Error()}
	}
	if !ok {
		if rerr := refusal(line); rerr != nil {
			return Answer{}, rerr
		}
		return Answer{}, &SquatterError{Why: "it refused the handshake without saying why"}
	}
	if err := t.Check(a, nonce, peer); err != nil {
		return Answer{}, err
	}
	return a, nil
}

// helloMessage is the challenge line: what json.Marshal writes for
// {"id": 0, "op": "hello", "nonce": nonce}, newline-terminated.
func helloMessage(nonce string) []byte {
	msg := append(make([]byte, 0, 128), `{"id":0,"nonce":`...)
	msg = wirejson.AppendString(msg, nonce, true)
	return append(msg, `,"op":"`+Op+`"}`+"\n"...)
}

// readHelloAnswer reads the registry's answer to the challenge: whether
// it says ok, and the answer if it does. It reads what encoding/json read
// before (package wirejson), without building a decoder for it in every
// hook process.
func readHelloAnswer(line []byte) (a Answer, ok bool, err error) {
	o, err := wirejson.ParseObject(line, "id", "ok", "result", "error")
	if err == nil {
		ok, err = o.Bool("ok")
	}
	if err != nil || !ok {
		return Answer{}, false, err
	}
	r, _, err := o.Object("result", "workspace", "pid", "proof", "mode", "policy_sha256", "approval_timeout_ms")
	if err != nil {
		return Answer{}, false, err
	}
	for _, f := range [...]struct {
		name string
		dst  *string
	}{{"workspace", &a.Workspace}, {"proof", &a.Proof}, {"mode", &a.Mode}, {"policy_sha256", &a.PolicyHash}} {
		if *f.dst, err = r.String(f.name); err != nil {
			return Answer{}, false, err
		}
	}
	pid, err := r.Int64("pid")
	if err != nil {
		return Answer{}, false, err
	}
	a.PID = int(pid)
	if a.ApprovalTimeoutMs, err = r.Int64("approval_timeout_ms"); err != nil {
		return Answer{}, false, err
	}
	return a, true, nil
}

// refusal is the error of an answer that refuses with a code, nil for
// anything else.
func refusal(line []byte) error {
	var resp struct {
		OK    bool `json:"ok"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(line, &resp) != nil || resp.OK || resp.Error == nil || resp.Error.Code == "" {
		return nil
	}
	return &RefusedError{Code: resp.Error.Code, Message: resp.Error.Message}
}

// Explain says, for the human who reads a hook's or a command's reason,
// what stood between the caller and the registry of workspace root: none
// running, a process that is not it, one that accepted but did not
// answer in time, or one that refused.
func Explain(err error, root string) string {
	var squat *SquatterError
	var hung *HungError
	var refused *RefusedError
	switch {
	case errors.As(err, &squat):
		return fmt.Sprintf("%v (workspace %s)", squat, root)
	case errors.As(err, &hung):
		return fmt.Sprintf("the registry of %s did not answer: %v; it may be hung, stopped or overloaded", root, hung)
	case errors.As(err, &refused):
		return fmt.Sprintf("the registry of %s %s", root, strings.TrimPrefix(refused.Error(), "the process serving the registry socket "))
	}
	return fmt.Sprintf("no registry is running in %s (%v)", root, err)
}

// readLine reads one line of at most max bytes from r (whatever follows
// it stays in r for the caller).
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var out []byte
	for len(out) <= max {
		chunk, err := r.ReadSlice('\n')
		out = append(out, chunk...)
		switch {
		case err == nil:
			return bytes.TrimSuffix(out[:len(out)-1], []byte("\r")), nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return nil, err
		}
	}
	return nil, fmt.Errorf("answer longer than %d bytes", max)
}

// myUID is this process's uid, for the peer check.
var myUID = os.Geteuid()
