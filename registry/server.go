package registry

import (
	"bufio"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/schemas"
)

// MaxMessage bounds one socket message. Manifests and tool inputs are
// small; a larger message is answered with a too_large error and skipped,
// and the connection keeps working.
const MaxMessage = 4 << 20

// Error codes of the socket API.
const (
	CodeBadRequest         = "bad_request"
	CodeTooLarge           = "too_large"
	CodeUnauthorized       = "unauthorized"
	CodeUnknownLease       = "unknown_lease"
	CodeNotAllowed         = "not_allowed"
	CodeClosed             = "closed"
	CodeUnknownApproval    = "unknown_approval"
	CodeAlreadyDecided     = "already_decided"
	CodeJournalUnavailable = "journal_unavailable"
	CodeInternal           = "internal"
	CodeNeedsManifest      = "needs_manifest"
)

// Request is one socket message: an op and its parameters. Unknown
// members are ignored, so an older registry answers a newer client.
type Request struct {
	ID    json.RawMessage `json:"id,omitempty"`
	Op    string          `json:"op"`
	Token string          `json:"token,omitempty"`

	Manifest   json.RawMessage `json:"manifest,omitempty"`
	Parent     string          `json:"parent,omitempty"`
	LeaseID    string          `json:"lease_id,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	Client     string          `json:"client,omitempty"`
	Summary    string          `json:"summary,omitempty"`
	MaxWaitMs  int64           `json:"max_wait_ms,omitempty"`
	DryRun     bool            `json:"dry_run,omitempty"`
	Reason     string          `json:"reason,omitempty"`
	By         string          `json:"by,omitempty"`
	ApprovalID string          `json:"approval_id,omitempty"`
	Outcome    string          `json:"outcome,omitempty"`
	Scope      string          `json:"scope,omitempty"`
	Status     string          `json:"status,omitempty"`
	Tokens     *float64        `json:"tokens,omitempty"`
	CostUSD    *float64        `json:"cost_usd,omitempty"`
	Source     string          `json:"source,omitempty"`

	// Lifecycle (the bridge): raw ids and prompts arrive over the 0600
	// socket and are kept only as salted hashes.
	AdmissionID   string `json:"admission_id,omitempty"`
	Session       string `json:"session,omitempty"`
	ParentSession string `json:"parent_session,omitempty"`
	AgentName     string `json:"agent_name,omitempty"`
	Prompt        string `json:"prompt,omitempty"`
	Turn          string `json:"turn,omitempty"`
	ResultHash    string `json:"result_hash,omitempty"`
	StopReason    string `json:"stop_reason,omitempty"`
	EndSession    bool   `json:"end_session,omitempty"`
	Aborted       bool   `json:"aborted,omitempty"`
	Resume        bool   `json:"resume,omitempty"`
	NoTurn        bool   `json:"no_turn,omitempty"`
}

// Response answers one Request.
type Response struct {
	ID     json.RawMessage `json:"id,omitempty"`
	OK     bool            `json:"ok"`
	Result any             `json:"result,omitempty"`
	Error  *RemoteError    `json:"error,omitempty"`
}

// RemoteError is an error answered by the registry.
type RemoteError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *RemoteError) Error() string { return e.Message + " (" + e.Code + ")" }

// Handler answers socket requests with a Service. Extra ops (the
// bridge's lifecycle) can be added with Handle.
type Handler struct {
	svc   *Service
	token string
	mu    sync.RWMutex
	extra map[string]func(ctx context.Context, req *Request, raw map[string]any) (any, *RemoteError)
}

// NewHandler serves svc; token is the operator token that decisions and
// revocations require.
func NewHandler(svc *Service, token string) *Handler {
	return &Handler{svc: svc, token: token, extra: map[string]func(context.Context, *Request, map[string]any) (any, *RemoteError){}}
}

// Handle registers an extra op.
func (h *Handler) Handle(op string, fn func(ctx context.Context, req *Request, raw map[string]any) (any, *RemoteError)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.extra[op] = fn
}

// Serve accepts connections on l until ctx ends.
func (h *Handler) Serve(ctx context.Context, l net.Listener) error {
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.serveConn(ctx, c)
		}()
	}
}

// Listen creates the workspace socket (0600). The caller holds the
// workspace lock, so a socket file left by a dead registry is stale.
func Listen(path string) (net.Listener, error) {
	os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

func (h *Handler) serveConn(ctx context.Context, c net.Conn) {
	defer c.Close()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-cctx.Done()
		c.SetReadDeadline(time.Now())
	}()
	r := bufio.NewReaderSize(c, 64<<10)
	enc := json.NewEncoder(c)
	for {
		line, tooLarge, err := readLine(r, MaxMessage)
		if tooLarge {
			enc.Encode(Response{Error: &RemoteError{Code: CodeTooLarge, Message: fmt.Sprintf("message larger than %d MiB", MaxMessage>>20)}})
			continue
		}
		if err != nil {
			return
		}
		if len(line) == 0 {
			continue
		}
		resp := h.answer(cctx, line)
		if err := enc.Encode(resp); err != nil {
			return
		}
	}
}

// readLine reads one newline-terminated message of at most max bytes. A
// longer one is consumed to its newline and reported as too large.
func readLine(r *bufio.Reader, max int) ([]byte, bool, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > max+1 {
			buf = nil
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				return nil, true, err
			}
			return nil, true, nil
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if err == io.EOF && len(buf) > 0 {
				return trimNL(buf), false, nil
			}
			return nil, false, err
		}
		return trimNL(buf), false, nil
	}
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func bad(format string, args ...any) *RemoteError {
	return &RemoteError{Code: CodeBadRequest, Message: fmt.Sprintf(format, args...)}
}

func (h *Handler) answer(ctx context.Context, line []byte) (resp Response) {
	defer func() {
		if p := recover(); p != nil {
			resp = Response{Error: &RemoteError{Code: CodeInternal, Message: fmt.Sprintf("internal error: %v", p)}}
		}
	}()
	v, err := schemas.ParseJSON(line)
	if err != nil {
		return Response{Error: bad("malformed message: %v", err)}
	}
	raw, ok := v.(map[string]any)
	if !ok {
		return Response{Error: bad("a message must be a JSON object")}
	}
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		return Response{Error: bad("malformed message: %v", err)}
	}
	resp.ID = req.ID
	result, rerr := h.dispatch(ctx, &req, raw)
	if rerr != nil {
		resp.Error = rerr
		return resp
	}
	resp.OK, resp.Result = true, result
	return resp
}

func (h *Handler) authorized(req *Request) *RemoteError {
	if h.token == "" || subtle.ConstantTimeCompare([]byte(req.Token), []byte(h.token)) != 1 {
		return &RemoteError{Code: CodeUnauthorized, Message: "this operation needs the operator token (only a human at the keyboard decides)"}
	}
	return nil
}

func (h *Handler) dispatch(ctx context.Context, req *Request, raw map[string]any) (any, *RemoteError) {
	s := h.svc
	switch req.Op {
	case "status":
		return h.status(), nil
	case "issue":
		m, ok := raw["manifest"]
		if !ok {
			return nil, bad("issue needs a manifest")
		}
		res, err := s.Issue(m, req.Parent)
		if err != nil && res.Status == "" {
			return nil, mapErr(err)
		}
		return res, nil
	case "gate", "check":
		if (req.LeaseID == "" && req.AdmissionID == "" && req.Session == "") || req.Tool == "" {
			return nil, bad("%s needs lease_id (or admission_id, or session) and tool", req.Op)
		}
		input, rerr := toolInput(raw)
		if rerr != nil {
			return nil, rerr
		}
		if req.AdmissionID == "" && req.LeaseID == "" && req.Session != "" {
			// A hook names its session, not an admission: resolve the
			// session's current turn here, saving the hook a round trip.
			a, err := s.Admit(AdmitRequest{Client: req.Client, Session: req.Session, ParentSession: req.ParentSession,
				AgentName: req.AgentName, Resume: true})
			if err != nil {
				return nil, mapErr(err)
			}
			if !a.Allowed {
				return nil, &RemoteError{Code: CodeClosed, Message: a.Reason}
			}
			req.AdmissionID = a.AdmissionID
		}
		if req.AdmissionID != "" {
			ans, err := s.GateAdmission(ctx, req.AdmissionID, GateRequest{
				Call: ToolCall{Tool: req.Tool, Input: input}, Summary: req.Summary,
				MaxWait: time.Duration(req.MaxWaitMs) * time.Millisecond, DryRun: req.DryRun || req.Op == "check",
			})
			if err != nil {
				return nil, mapErr(err)
			}
			return ans, nil
		}
		if _, known := s.lease(req.LeaseID); !known {
			return nil, &RemoteError{Code: CodeUnknownLease, Message: "unknown lease " + req.LeaseID}
		}
		return s.Gate(ctx, GateRequest{
			LeaseID: req.LeaseID, Call: ToolCall{Tool: req.Tool, Input: input}, Client: req.Client,
			Summary: req.Summary, MaxWait: time.Duration(req.MaxWaitMs) * time.Millisecond,
			DryRun: req.DryRun || req.Op == "check",
		}), nil
	case "usage":
		if err := s.RecordUsage(req.LeaseID, Usage{Tokens: req.Tokens, CostUSD: req.CostUSD, Source: req.Source}); err != nil {
			return nil, mapErr(err)
		}
		return map[string]any{}, nil
	case "finish":
		st := Status(req.Status)
		if st != Completed && st != Stopped {
			return nil, bad(`finish needs status "completed" or "stopped"`)
		}
		if st == Stopped {
			if e := h.authorized(req); e != nil {
				return nil, e
			}
		}
		if err := s.Finish(req.LeaseID, st, req.Reason); err != nil {
			return nil, mapErr(err)
		}
		return map[string]any{}, nil
	case "leases":
		return map[string]any{"leases": s.Views()}, nil
	case "lease":
		v, ok := s.View(req.LeaseID)
		if !ok {
			return nil, &RemoteError{Code: CodeUnknownLease, Message: "unknown lease " + req.LeaseID}
		}
		return v, nil
	case "revoke":
		if e := h.authorized(req); e != nil {
			return nil, e
		}
		if req.LeaseID == "" {
			return nil, bad("revoke needs lease_id")
		}
		res, err := s.Revoke(req.LeaseID, req.By, req.Reason)
		if err != nil {
			return nil, mapErr(err)
		}
		return res, nil
	case "approvals":
		return map[string]any{"pending": s.PendingApprovals()}, nil
	case "admit":
		res, err := s.Admit(AdmitRequest{Client: req.Client, Session: req.Session, ParentSession: req.ParentSession,
			AgentName: req.AgentName, Manifest: raw["manifest"], Prompt: req.Prompt, Turn: req.Turn, Resume: req.Resume, NoTurn: req.NoTurn})
		if err != nil && !res.Allowed && res.Reason == "" {
			return nil, mapErr(err)
		}
		return res, nil
	case "report":
		input, rerr := toolInput(raw)
		if rerr != nil {
			return nil, rerr
		}
		res, err := s.Report(req.AdmissionID, ToolCall{Tool: req.Tool, Input: input}, req.Status, req.ResultHash, req.Summary)
		if err != nil {
			return nil, mapErr(err)
		}
		return res, nil
	case "telemetry":
		w, err := s.Telemetry(req.AdmissionID, req.Tokens, req.CostUSD, req.Source)
		if err != nil {
			return nil, mapErr(err)
		}
		return map[string]any{"warnings": w}, nil
	case "end_session":
		if req.Session == "" {
			return nil, bad("end_session needs session")
		}
		res, err := s.EndSession(req.Session, req.StopReason)
		if err != nil {
			return nil, mapErr(err)
		}
		return res, nil
	case "finalize":
		res, err := s.Finalize(req.AdmissionID, req.StopReason, req.EndSession, req.Aborted)
		if err != nil {
			return nil, mapErr(err)
		}
		return res, nil
	case "decide":
		if e := h.authorized(req); e != nil {
			return nil, e
		}
		var out approvals.Outcome
		switch req.Outcome {
		case "approved", "approve":
			out = approvals.Approved
		case "denied", "deny":
			out = approvals.Denied
		default:
			return nil, bad(`decide needs outcome "approved" or "denied"`)
		}
		by := req.By
		if by == "" {
			by = "operator"
		}
		r, err := s.DecideApproval(req.ApprovalID, out, approvals.Scope(req.Scope), req.Reason, by)
		if err != nil {
			return nil, mapErr(err)
		}
		return map[string]any{"approval_id": r.ID, "lease_id": r.LeaseID, "outcome": string(out)}, nil
	}
	h.mu.RLock()
	fn := h.extra[req.Op]
	h.mu.RUnlock()
	if fn != nil {
		return fn(ctx, req, raw)
	}
	if req.Op == "" {
		return nil, bad("message has no op")
	}
	return nil, bad("unknown op %q", req.Op)
}

func mapErr(err error) *RemoteError {
	code := CodeInternal
	switch {
	case errors.Is(err, ErrUnknownLease):
		code = CodeUnknownLease
	case errors.Is(err, ErrNeedsManifest):
		code = CodeNeedsManifest
	case errors.Is(err, ErrNotAllowed), errors.Is(err, approvals.ErrInvalid):
		code = CodeNotAllowed
	case errors.Is(err, ErrClosed):
		code = CodeClosed
	case errors.Is(err, approvals.ErrUnknown):
		code = CodeUnknownApproval
	case errors.Is(err, approvals.ErrDecided):
		code = CodeAlreadyDecided
	default:
		code = CodeJournalUnavailable
	}
	return &RemoteError{Code: code, Message: err.Error()}
}

func (h *Handler) status() map[string]any {
	s := h.svc
	ls, lh, _ := s.w.Head(0)
	as, ah, _ := s.w.Head(1)
	st := map[string]any{
		"workspace":         s.cfg.Workspace,
		"pid":               os.Getpid(),
		"issuer_session_id": s.cfg.SessionID,
		"key_fingerprint":   s.cfg.Key.Fingerprint(),
		"journal": map[string]any{
			"leases_seq": ls, "leases_head": lh, "audit_seq": as, "audit_head": ah,
		},
		"pending_approvals": len(s.book.Pending()),
	}
	if err := s.Health(); err != nil {
		st["health"] = err.Error()
	} else {
		st["health"] = "ok"
	}
	return st
}

// toolInput reads a request's `input` member: absent means {}.
func toolInput(raw map[string]any) (map[string]any, *RemoteError) {
	in, present := raw["input"]
	if !present || in == nil {
		return map[string]any{}, nil
	}
	obj, ok := in.(map[string]any)
	if !ok {
		return nil, bad("/input must be a JSON object (the tool input)")
	}
	return obj, nil
}
