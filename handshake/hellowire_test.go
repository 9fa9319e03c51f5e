package handshake

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"testing/quick"
)

func TestHelloMessageIsWhatMarshalWrites(t *testing.T) {
	for range 100 {
		nonce, err := NewNonce()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(map[string]any{"id": 0, "op": Op, "nonce": nonce})
		if got := helloMessage(nonce); !bytes.Equal(got, append(want, '\n')) {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
}

// The registry writes its answer with encoding/json; the hook reads what
// encoding/json would have read from it.
func TestHelloAnswerReadsWhatTheRegistryWrites(t *testing.T) {
	if err := quick.Check(func(a Answer) bool {
		line, _ := json.Marshal(map[string]any{"id": 0, "ok": true, "result": a})
		var want struct{ Result Answer }
		json.Unmarshal(line, &want)
		got, ok, err := readHelloAnswer(line)
		return err == nil && ok && reflect.DeepEqual(got, want.Result)
	}, &quick.Config{MaxCount: 3000}); err != nil {
		t.Fatal(err)
	}
}

func TestHelloAnswerRefusesWhatIsNotTheProtocols(t *testing.T) {
	for _, line := range []string{
		`{"ok":true,"result":{"pid":"12"}}`, `{"ok":true,"result":{"workspace":"/a","Workspace":"/b"}}`,
		`{"ok":true,"ok":true}`, `{"ok":"true"}`, `{"ok":true,"result":[]}`, `{"ok":true,"result":{"pid":1.5}}`, `[`,
	} {
		if a, ok, err := readHelloAnswer([]byte(line)); err == nil {
			t.Errorf("%s: read as %+v (ok %v), want an error", line, a, ok)
		}
	}
	if _, ok, err := readHelloAnswer([]byte(`{"id":0,"ok":false,"error":{"code":"too_many_connections","message":"later"}}`)); ok || err != nil {
		t.Errorf("a refusal: ok %v, err %v", ok, err)
	}
}

func FuzzHelloAnswer(f *testing.F) {
	f.Add([]byte(`{"id":0,"ok":true,"result":{"workspace":"/w","pid":7,"proof":"ab","mode":"enforce","approval_timeout_ms":300000}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok, err := readHelloAnswer(line)
		if err != nil || !ok {
			return
		}
		var want struct {
			OK     bool   `json:"ok"`
			Result Answer `json:"result"`
		}
		if jerr := json.Unmarshal(line, &want); jerr != nil || !want.OK || !reflect.DeepEqual(got, want.Result) {
			t.Fatalf("%q: read as %+v, encoding/json: %+v (%v)", line, got, want, jerr)
		}
	})
}
