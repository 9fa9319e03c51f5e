package journal

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/leasedeck/leasedeck/durable"
)

// A checkpoint is an audit line, leasedeck.journal.checkpoint, that signs
// with Ed25519 the heads of both files at the line before it: the seq and
// SHA-256 of leases.jsonl's last line and of audit.jsonl's. Every line is
// chained into those hashes, so a signed checkpoint vouches for every
// line before it — to anyone holding the public key, without the HMAC
// key. A rewrite made with a stolen HMAC key re-chains the lines, and
// then a checkpoint no longer matches them; a forged checkpoint does not
// verify.

// checkpointContext is signed first, so a signature over a journal head
// can never be mistaken for one over anything else.
const checkpointContext = "leasedeck-journal-checkpoint/1\n"

// publicKeyPrefix spells a public key for people and flags.
const publicKeyPrefix = "ed25519:"

type signer struct {
	key ed25519.PrivateKey
	id  string // key id: first 16 hex digits of SHA-256 of the public key
}

// checkpointMessage is the exact bytes a checkpoint signs.
func checkpointMessage(leasesSeq uint64, leasesHead string, auditSeq uint64, auditHead string) []byte {
	return fmt.Appendf(nil, "%sleases %d %s\naudit %d %s\n", checkpointContext, leasesSeq, leasesHead, auditSeq, auditHead)
}

func keyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:8])
}

// loadSigner reads the Ed25519 key at path (the 32-byte seed, hex),
// creating it durably, 0600, on first use.
func loadSigner(path string) (*signer, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		seed := make([]byte, ed25519.SeedSize)
		if _, err := rand.Read(seed); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("journal: creating the signing key's directory: %w", err)
		}
		if err := durable.WriteFile(path, []byte(hex.EncodeToString(seed)+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("journal: creating the signing key %s: %w", path, err)
		}
		data = []byte(hex.EncodeToString(seed))
	} else if err != nil {
		return nil, fmt.Errorf("journal: reading the signing key: %w", err)
	}
	seed, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("journal: the signing key %s is not %d bytes of hex", path, ed25519.SeedSize)
	}
	key := ed25519.NewKeyFromSeed(seed)
	return &signer{key: key, id: keyID(key.Public().(ed25519.PublicKey))}, nil
}

// PublicKey reads the signing key at path and returns its public half,
// creating the key if there is none yet (as the registry would).
func PublicKey(path string) (ed25519.PublicKey, error) {
	s, err := loadSigner(path)
	if err != nil {
		return nil, err
	}
	return s.key.Public().(ed25519.PublicKey), nil
}

// ReadPublicKey is PublicKey for readers: a missing key is an error
// wrapping fs.ErrNotExist, never created.
func ReadPublicKey(path string) (ed25519.PublicKey, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	return PublicKey(path)
}

// PublicKeyText spells a public key as `leasedeck journal pubkey` prints
// it and `journal verify --pubkey` takes it: ed25519:<64 hex>.
func PublicKeyText(pub ed25519.PublicKey) string {
	return publicKeyPrefix + hex.EncodeToString(pub)
}

// ParsePublicKey reads PublicKeyText's spelling (the prefix is optional).
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimSpace(s), publicKeyPrefix))
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("a public key is %s followed by %d hex digits", publicKeyPrefix, 2*ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// checkpointRecord signs the current heads of both files.
func (w *Writer) checkpointRecord() map[string]any {
	ls, lh := w.files[Leases].seq, hex.EncodeToString(w.files[Leases].head[:])
	as, ah := w.files[Audit].seq, hex.EncodeToString(w.files[Audit].head[:])
	sig := ed25519.Sign(w.signer.key, checkpointMessage(ls, lh, as, ah))
	return systemRecord(w.opts.Now(), EventCheckpoint, "success",
		fmt.Sprintf("signed checkpoint of leases seq %d and audit seq %d (key %s)", ls, as, w.signer.id),
		map[string]any{
			"leases_seq":  ls,
			"leases_head": lh,
			"audit_seq":   as,
			"audit_head":  ah,
			"key_id":      w.signer.id,
			"signature":   hex.EncodeToString(sig),
		})
}

// checkpointClaim is a checkpoint line as a verifier reads it.
type checkpointClaim struct {
	leasesSeq, auditSeq   uint64
	leasesHead, auditHead string
	keyID                 string
	sig                   []byte
}

func parseCheckpoint(v map[string]any) (checkpointClaim, error) {
	d, _ := v["details"].(map[string]any)
	var c checkpointClaim
	var missing []string
	num := func(name string) uint64 {
		n, ok := d[name].(json.Number)
		x, err := strconv.ParseUint(string(n), 10, 64)
		if !ok || err != nil {
			missing = append(missing, name)
		}
		return x
	}
	str := func(name string) string {
		s, ok := d[name].(string)
		if !ok {
			missing = append(missing, name)
		}
		return s
	}
	c.leasesSeq, c.auditSeq = num("leases_seq"), num("audit_seq")
	c.leasesHead, c.auditHead, c.keyID = str("leases_head"), str("audit_head"), str("key_id")
	sig, err := hex.DecodeString(str("signature"))
	if err != nil || len(sig) != ed25519.SignatureSize {
		missing = append(missing, "signature")
	}
	c.sig = sig
	if len(missing) > 0 {
		return c, fmt.Errorf("a checkpoint without a usable %s", strings.Join(missing, ", "))
	}
	return c, nil
}
