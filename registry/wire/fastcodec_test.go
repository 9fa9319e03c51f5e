package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"testing"
	"testing/quick"

	"github.com/leasedeck/leasedeck/schemas"
)

// marshalledCall is a call message as encoding/json writes it: the
// envelope's members, then the params' (what call wrote before it wrote
// them itself).
func marshalledCall(t *testing.T, id int, op Op, token, capability, ticket string, params any) []byte {
	t.Helper()
	body, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	env, _ := json.Marshal(Envelope{ID: json.RawMessage(strconv.Itoa(id)), Op: op, Token: token, Capability: capability, RunTicket: ticket})
	msg := append([]byte(nil), env[:len(env)-1]...)
	if !bytes.Equal(body, []byte("{}")) {
		msg = append(msg, ',')
		msg = append(msg, body[1:len(body)-1]...)
	}
	return append(msg, '}')
}

func writtenCall(t *testing.T, id int, op Op, token, capability, ticket string, params wireParams) []byte {
	t.Helper()
	body, err := params.appendWire(nil)
	if err != nil {
		t.Fatal(err)
	}
	msg := appendEnvelope(nil, id, op, token, capability, ticket)
	if !bytes.Equal(body, []byte("{}")) {
		msg = append(msg, ',')
		msg = append(msg, body[1:len(body)-1]...)
	}
	return append(msg, '}')
}

// gateFields are GateParams' members but the input, for testing/quick.
type gateFields struct {
	LeaseID, AdmissionID, Session, ParentSession, AgentName, Client, Tool string
	MaxWaitMs                                                             int64
	DryRun, ClientPrompt                                                  bool
	ToolUseID                                                             string
}

func TestGateMessageIsWhatMarshalWrites(t *testing.T) {
	inputs := []string{`{"command":"npm test","description":"<run> & see","timeout":120000,"run_in_background":false}`,
		`{"file_path":"/a/b\u2028","content":"x\ny","n":[1,2.5e-7,null,{"k":"é"}]}`, `{}`, `null`}
	if err := quick.Check(func(f gateFields, which uint8, id uint16, token, capability, ticket string, setInput bool) bool {
		p := GateParams{LeaseID: f.LeaseID, AdmissionID: f.AdmissionID, Session: f.Session, ParentSession: f.ParentSession,
			AgentName: f.AgentName, Client: f.Client, Tool: f.Tool, MaxWaitMs: f.MaxWaitMs, DryRun: f.DryRun,
			ClientPrompt: f.ClientPrompt, ToolUseID: f.ToolUseID}
		if setInput {
			v, err := schemas.ParseJSON([]byte(inputs[int(which)%len(inputs)]))
			if err != nil {
				t.Fatal(err)
			}
			p.Input = Doc{V: v, Set: true}
		}
		want := marshalledCall(t, int(id), OpGate, token, capability, ticket, p)
		got := writtenCall(t, int(id), OpGate, token, capability, ticket, p)
		check := writtenCall(t, int(id), OpCheck, "", capability, "", CheckParams(p))
		return bytes.Equal(got, want) && bytes.Equal(check, marshalledCall(t, int(id), OpCheck, "", capability, "", CheckParams(p)))
	}, &quick.Config{MaxCount: 3000}); err != nil {
		t.Fatal(err)
	}
	// Only the tool: no member before it, so no comma.
	if got, want := writtenCall(t, 1, OpGate, "", "", "", GateParams{Tool: "Bash"}), marshalledCall(t, 1, OpGate, "", "", "", GateParams{Tool: "Bash"}); !bytes.Equal(got, want) {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestGateAnswerReadsWhatTheRegistryWrites(t *testing.T) {
	if err := quick.Check(func(a GateAnswer, id uint16) bool {
		line, _ := json.Marshal(Response{ID: json.RawMessage(strconv.Itoa(int(id))), OK: true, Result: a})
		var want GateAnswer
		var resp struct{ Result json.RawMessage }
		json.Unmarshal(line, &resp)
		json.Unmarshal(resp.Result, &want)
		var got GateAnswer
		err := readAnswer(line, OpGate, &got)
		return err == nil && reflect.DeepEqual(got, want)
	}, &quick.Config{MaxCount: 3000}); err != nil {
		t.Fatal(err)
	}
}

func TestGateAnswerErrorsAsBefore(t *testing.T) {
	for _, c := range []struct {
		line string
		code Code // "" : a malformed answer (ErrUnreachable)
	}{
		{`{"id":1,"ok":false,"error":{"code":"closed","message":"the lease is closed"}}`, Closed},
		{`{"id":1,"ok":false}`, Internal},
		{`{"id":1,"ok":false,"error":{"code":3}}`, ""},
		{`{"id":1,"ok":true,"result":{"decision":"allow","Decision":"deny"}}`, ""},
		{`{"id":1,"ok":true,"result":"allow"}`, ""},
		{`{"id":1,"ok":true,"ok":false}`, ""},
		{`not json`, ""},
	} {
		var a GateAnswer
		err := readAnswer([]byte(c.line), OpGate, &a)
		var we *Error
		switch {
		case c.code == "" && !errors.Is(err, ErrUnreachable):
			t.Errorf("%s: %v, want a malformed answer", c.line, err)
		case c.code != "" && (!errors.As(err, &we) || we.Code != c.code):
			t.Errorf("%s: %v, want code %s", c.line, err, c.code)
		}
	}
}
