package wire

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/leasedeck/leasedeck/wirejson"
)

// The messages a hook exchanges on every tool call (the gate and its
// answer) are written and read without encoding/json's reflection: a hook
// is a new process each time, and building encoding/json's encoders and
// decoders for these types was most of the hook's own time on the socket.
// The bytes are json.Marshal's (the tests compare them), and the answer
// is read by the registry's own strict parser.

// wireParams is a params type written without reflection.
type wireParams interface {
	appendWire(dst []byte) ([]byte, error)
}

// wireResult is a result type read without reflection.
type wireResult interface {
	readWire(o wirejson.Object) error
	wireNames() []string
}

// encodeParams is json.Marshal(params), without reflection where it can.
func encodeParams[P any](params P) ([]byte, error) {
	if p, ok := any(params).(wireParams); ok {
		return p.appendWire(make([]byte, 0, 512))
	}
	return json.Marshal(params)
}

// appendEnvelope writes what json.Marshal writes for
// Envelope{ID: id, Op: op, Token: …} less its closing brace.
func appendEnvelope(dst []byte, id int, op Op, token, capability, runTicket string) []byte {
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendInt(dst, int64(id), 10)
	dst = append(dst, `,"op":`...)
	dst = wirejson.AppendString(dst, string(op), true)
	dst = appendStringMember(dst, "token", token)
	dst = appendStringMember(dst, "capability", capability)
	return appendStringMember(dst, "run_ticket", runTicket)
}

// appendStringMember writes `,"name":"value"` unless value is empty
// (omitempty); name needs no escaping.
func appendStringMember(dst []byte, name, value string) []byte {
	if value == "" {
		return dst
	}
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	return wirejson.AppendString(dst, value, true)
}

// appendWire writes what json.Marshal writes for p.
func (p GateParams) appendWire(dst []byte) ([]byte, error) {
	dst = append(dst, '{')
	n := len(dst)
	for _, m := range [...]struct{ name, value string }{
		{"lease_id", p.LeaseID}, {"admission_id", p.AdmissionID}, {"session", p.Session},
		{"parent_session", p.ParentSession}, {"agent_name", p.AgentName}, {"client", p.Client},
	} {
		dst = appendStringMember(dst, m.name, m.value)
	}
	dst = append(dst, `,"tool":`...)
	dst = wirejson.AppendString(dst, p.Tool, true)
	if !p.Input.IsZero() {
		dst = append(dst, `,"input":`...)
		var err error
		if dst, err = wirejson.AppendValue(dst, p.Input.V, true); err != nil {
			return nil, fmt.Errorf("json: error calling MarshalJSON for type wire.Doc: %w", err)
		}
	}
	if p.MaxWaitMs != 0 {
		dst = append(dst, `,"max_wait_ms":`...)
		dst = strconv.AppendInt(dst, p.MaxWaitMs, 10)
	}
	if p.DryRun {
		dst = append(dst, `,"dry_run":true`...)
	}
	if p.ClientPrompt {
		dst = append(dst, `,"client_prompt":true`...)
	}
	dst = appendStringMember(dst, "tool_use_id", p.ToolUseID)
	// The first member written carries no comma before it.
	if dst[n] == ',' {
		dst = append(dst[:n], dst[n+1:]...)
	}
	return append(dst, '}'), nil
}

func (p CheckParams) appendWire(dst []byte) ([]byte, error) { return GateParams(p).appendWire(dst) }

var gateAnswerNames = []string{"decision", "reason", "approval_id", "approvals", "decided_by", "asked_in", "seq", "event_id"}

func (a *GateAnswer) wireNames() []string { return gateAnswerNames }

func (a *GateAnswer) readWire(o wirejson.Object) error {
	var err error
	var verdict string
	for _, f := range [...]struct {
		name string
		dst  *string
	}{
		{"decision", &verdict}, {"reason", &a.Reason}, {"approval_id", &a.ApprovalID},
		{"decided_by", &a.DecidedBy}, {"asked_in", &a.AskedIn}, {"event_id", &a.EventID},
	} {
		if *f.dst, err = o.String(f.name); err != nil {
			return err
		}
	}
	a.Verdict = Verdict(verdict)
	if a.Approvals, err = o.Strings("approvals"); err != nil {
		return err
	}
	a.Seq, err = o.Uint64("seq")
	return err
}

// readAnswer reads an answer line into out, as call's encoding/json path
// does: an answered error is *Error, a malformed line wraps
// ErrUnreachable.
func readAnswer(line []byte, op Op, out wireResult) error {
	o, err := wirejson.ParseObject(line, "id", "ok", "result", "error")
	var ok bool
	if err == nil {
		ok, err = o.Bool("ok")
	}
	if err != nil {
		return fmt.Errorf("%w: malformed answer to %s: %v", ErrUnreachable, op, err)
	}
	if !ok {
		e, has, err := o.Object("error", "code", "message")
		if err != nil {
			return fmt.Errorf("%w: malformed answer to %s: %v", ErrUnreachable, op, err)
		}
		if !has {
			return &Error{Code: Internal, Message: "the registry refused without saying why"}
		}
		code, cerr := e.String("code")
		msg, merr := e.String("message")
		if cerr != nil || merr != nil {
			return fmt.Errorf("%w: malformed answer to %s: %v", ErrUnreachable, op, errOr(cerr, merr))
		}
		return &Error{Code: Code(code), Message: msg}
	}
	res, has, err := o.Object("result", out.wireNames()...)
	if err == nil && has {
		err = out.readWire(res)
	}
	if err != nil {
		return fmt.Errorf("%w: answer to %s: %v", ErrUnreachable, op, err)
	}
	return nil
}

func errOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
