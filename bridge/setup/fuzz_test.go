package setup

import (
	"testing"

	"github.com/leasedeck/leasedeck/bridge"
)

func FuzzInstall(f *testing.F) {
	f.Add([]byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x"}]}]}}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"hooks":{"PreToolUse":[1,"x",{"hooks":"no"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, client := range bridge.Clients() {
			opts := installOpts(client)
			res, err := Install(client, data, opts)
			if err != nil {
				continue
			}
			again, err := Install(client, res.Bytes, opts)
			if err != nil {
				t.Fatalf("%s: own output unreadable: %v\n%s", client, err, res.Bytes)
			}
			if again.Changed {
				t.Fatalf("%s: not idempotent:\n%s\n---\n%s", client, res.Bytes, again.Bytes)
			}
		}
	})
}
