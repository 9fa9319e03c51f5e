package registry

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"sync"

	"github.com/leasedeck/leasedeck/registry/wire"
	"github.com/leasedeck/leasedeck/schemas"
)

// Handler answers the socket protocol (package wire) with a Service,
// dispatching each message through the op table (ops.go).
type Handler struct {
	svc    *Service
	token  string
	limits ConnLimits // see conn.go

	localOnce   sync.Once
	localBudget *lineBudget // shared by Local connections
}

// NewHandler serves svc; token is the operator token that operator ops
// require.
func NewHandler(svc *Service, token string) *Handler {
	return &Handler{svc: svc, token: token}
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

func bad(format string, args ...any) *wire.Error {
	return wire.Errorf(wire.BadRequest, format, args...)
}

// answer decodes one message's envelope, finds its op in the table,
// checks who may call it and runs it. A panic in a handler is answered
// as internal; the connection keeps working.
func (h *Handler) answer(ctx context.Context, line []byte) (resp wire.Response) {
	defer func() {
		if p := recover(); p != nil {
			resp = wire.Response{ID: resp.ID, Error: wire.Errorf(wire.Internal, "internal error: %v", p)}
		}
	}()
	// The strict parser refuses duplicate members, so no two readers of
	// one message can see different values.
	v, err := schemas.ParseJSON(line)
	if err != nil {
		return wire.Response{Error: bad("malformed message: %v", err)}
	}
	if _, ok := v.(map[string]any); !ok {
		return wire.Response{Error: bad("a message must be a JSON object")}
	}
	var env wire.Envelope
	if err := json.Unmarshal(line, &env); err != nil {
		return wire.Response{Error: decodeError(err)}
	}
	resp.ID = env.ID
	spec, ok := opIndex[env.Op]
	if !ok {
		if env.Op == "" {
			resp.Error = bad("message has no op")
		} else {
			resp.Error = bad("unknown op %q (known: %s)", env.Op, knownOps())
		}
		return resp
	}
	c := &call{env: env, operator: h.operator(env.Token), peer: peerOf(ctx)}
	if spec.access == wire.Operator && !c.operator {
		resp.Error = needsOperator(spec.name)
		return resp
	}
	result, rerr := spec.serve(ctx, h, c, line)
	if rerr != nil {
		resp.Error = rerr
		return resp
	}
	resp.OK, resp.Result = true, result
	return resp
}

// decodeError names the member whose value has the wrong type.
func decodeError(err error) *wire.Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return bad("/%s must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	return bad("malformed message: %v", err)
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	}
	return "a number"
}

// mapErr maps a service error to its code. What is not classified is
// internal: journal_unavailable only for a journal that cannot be written
// or is broken.
func mapErr(err error) *wire.Error {
	return &wire.Error{Code: codeOf(err), Message: err.Error()}
}

func (h *Handler) status() wire.StatusResult {
	s := h.svc
	ls, lh, _ := s.w.Head(0)
	as, ah, _ := s.w.Head(1)
	st := wire.StatusResult{
		Workspace:        s.cfg.Workspace,
		PID:              os.Getpid(),
		IssuerSessionID:  s.cfg.SessionID,
		KeyFingerprint:   s.cfg.Key.Fingerprint(),
		Journal:          wire.JournalStatus{LeasesSeq: ls, LeasesHead: lh, AuditSeq: as, AuditHead: ah},
		PendingApprovals: len(s.book.Pending()),
		Health:           "ok",
	}
	start := s.Start()
	st.Start = wire.StartStatus{FromSnapshot: start.FromSnapshot, SnapshotAt: start.At,
		ReplayedLines: start.Replayed, Refused: start.Refused, SnapshotError: s.SnapshotError()}
	if err := s.Health(); err != nil {
		st.Health = err.Error()
	}
	return st
}

// toolInput reads a message's `input` member: absent or null means {}.
func toolInput(d wire.Doc) (map[string]any, *wire.Error) {
	obj, ok := d.Object()
	if !ok {
		return nil, bad("/input must be a JSON object (the tool input)")
	}
	return obj, nil
}
