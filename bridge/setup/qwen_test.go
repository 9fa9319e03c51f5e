package setup

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/leasedeck/leasedeck/bridge"
)

func TestQwenInstall(t *testing.T) {
	opts := installOpts("qwen-code")
	user := `{"model":{"name":"qwen3"},"hooks":{"PreToolUse":[{"matcher":"run_shell_command","hooks":[{"type":"command","command":"./audit.sh"}]}]}}`
	res, err := Install("qwen-code", []byte(user), opts)
	if err != nil {
		t.Fatal(err)
	}
	m := decodeStd(t, res.Bytes)
	if m["model"].(map[string]any)["name"] != "qwen3" || !strings.Contains(string(res.Bytes), "./audit.sh") {
		t.Errorf("the user's settings are gone:\n%s", res.Bytes)
	}
	hs := handlers(t, "qwen-code", res.Bytes, opts.Command)
	gate := hs["PreToolUse"]
	if len(gate) != 1 || gate[0]["name"] != "leasedeck" || gate[0]["_matcher"] != "*" {
		t.Errorf("gate handler %v", gate)
	}
	// A wait of 1000 s or more would be read as milliseconds: clamped.
	long := InstallOptions{Command: opts.Command, Timeout: secs(1500), ApprovalTimeout: secs(1200)}
	res, err = Install("qwen-code", nil, long)
	if err != nil {
		t.Fatal(err)
	}
	for ev, h := range handlers(t, "qwen-code", res.Bytes, opts.Command) {
		if to := h[0]["timeout"].(json.Number).String(); to != "999" {
			t.Errorf("%s: timeout %s", ev, to)
		}
	}
	if w := bridge.ApprovalWait(adapter(t, "qwen-code"), "PreToolUse", secs(1500), secs(1200)); w >= secs(999) {
		t.Errorf("the hook would wait %s, past the timeout Qwen Code applies", w)
	}
}
