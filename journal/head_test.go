package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestHeadSlots(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.head")
	if _, err := ReadHead(path, testKey); err != ErrNoHead {
		t.Fatalf("missing head: %v", err)
	}
	hf, err := openHeadFile(path, testKey, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer hf.close()
	for i := uint64(1); i <= 5; i++ {
		h := &Head{Dir: "1:2", Files: [2]FileHead{{Seq: i, Hash: ZeroHash, Size: int64(i) * 100, ID: "1:3"}}}
		if err := hf.write(h); err != nil {
			t.Fatal(err)
		}
		got, err := ReadHead(path, testKey)
		if err != nil || got.Files[0].Seq != i || got.Gen != i {
			t.Fatalf("after write %d: %+v %v", i, got, err)
		}
	}
	// One slot torn: the other still holds the head before it.
	data, _ := os.ReadFile(path)
	torn := bytes.Clone(data)
	copy(torn[headSlot:], bytes.Repeat([]byte{'x'}, 40)) // gen 5 is in slot 1
	os.WriteFile(path, torn, 0o600)
	if got, err := ReadHead(path, testKey); err != nil || got.Gen != 4 {
		t.Fatalf("with the newest slot torn: %+v %v", got, err)
	}
	// Another key, or both slots gone: not believed.
	os.WriteFile(path, data, 0o600)
	if _, err := ReadHead(path, bytes.Repeat([]byte{1}, 32)); err == nil {
		t.Fatal("a head read under another key")
	}
	os.WriteFile(path, bytes.Repeat([]byte{' '}, 2*headSlot), 0o600)
	if _, err := ReadHead(path, testKey); err == nil {
		t.Fatal("an empty head was believed")
	}
}

// FuzzHeadSlot: whatever bytes a head file holds, reading it never
// panics, and a slot is believed only with the key's mac.
func FuzzHeadSlot(f *testing.F) {
	good, _ := encodeHeadSlot(&Head{Gen: 3, Files: [2]FileHead{{Seq: 7, Hash: ZeroHash, Size: 9}}}, testKey)
	f.Add(good)
	f.Add([]byte("{}\n00\n"))
	f.Add(bytes.Repeat([]byte{'\n'}, headSlot))
	f.Fuzz(func(t *testing.T, b []byte) {
		slot := make([]byte, headSlot)
		copy(slot, b)
		h, ok := decodeHeadSlot(slot, testKey)
		if !ok {
			return
		}
		again, err := encodeHeadSlot(h, testKey)
		if err != nil {
			t.Fatalf("a believed head does not encode: %v", err)
		}
		if h2, ok := decodeHeadSlot(again, testKey); !ok || h2.Gen != h.Gen || h2.Files != h.Files {
			t.Fatalf("round trip: %+v → %+v", h, h2)
		}
	})
}

// FuzzParsePublicKey: any text is a key or a clear error, never a panic.
func FuzzParsePublicKey(f *testing.F) {
	f.Add("ed25519:" + string(bytes.Repeat([]byte("ab"), 32)))
	f.Add("ed25519:")
	f.Add("zz")
	f.Fuzz(func(t *testing.T, s string) {
		pub, err := ParsePublicKey(s)
		if err == nil && len(pub) != 32 {
			t.Fatalf("%q parsed to %d bytes", s, len(pub))
		}
	})
}
