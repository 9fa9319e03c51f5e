package journal

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/leasedeck/leasedeck/durable"
)

// FileHead is what the registry last acknowledged of one journal file: the
// seq and SHA-256 of its last line, the file's size after it, and the
// file's identity on disk.
type FileHead struct {
	Seq  uint64 `json:"seq"`
	Hash string `json:"hash"` // hex; ZeroHash for an empty file
	Size int64  `json:"size"`
	ID   string `json:"id,omitempty"` // device:inode, where the platform has them
}

// Head is the journal's head as its writer keeps it outside the journal
// directory (in the per-user state directory): whoever can write the
// journal files cannot make the registry forget what it acknowledged. A
// file cut at a line boundary, replaced by an older copy or rewritten
// then no longer reaches its head, and Open and Verify say which.
type Head struct {
	Gen   uint64      `json:"gen"` // counts writes, newest wins
	Dir   string      `json:"dir,omitempty"`
	Files [2]FileHead `json:"files"` // by Kind
	// CheckpointSeq is the audit seq of the last signed checkpoint.
	CheckpointSeq uint64 `json:"checkpoint_seq,omitempty"`
}

// The head file holds two slots, written in turn, each a JSON body, a
// newline, the HMAC of the body under the deployment key, padded to a
// fixed size: a write torn by a crash damages one slot, and the other
// still holds the previous head. Updating it is a pwrite and an fdatasync
// of one block, never a rename.
const (
	headSlot    = 512
	headContext = "leasedeck-journal-head/1\n"
)

// ErrNoHead is returned by ReadHead when no head has been kept yet.
var ErrNoHead = errors.New("journal: no head kept yet")

// HeadError is a head file that exists but cannot be believed.
type HeadError struct {
	Path   string
	Reason string
}

func (e *HeadError) Error() string {
	return fmt.Sprintf("journal head %s: %s", e.Path, e.Reason)
}

func headMAC(key, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(headContext))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

func encodeHeadSlot(h *Head, key []byte) ([]byte, error) {
	body, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	slot := make([]byte, 0, headSlot)
	slot = append(slot, body...)
	slot = append(slot, '\n')
	slot = append(slot, headMAC(key, body)...)
	slot = append(slot, '\n')
	if len(slot) > headSlot {
		return nil, fmt.Errorf("journal: head record is %d bytes, more than a slot (%d)", len(slot), headSlot)
	}
	return append(slot, bytes.Repeat([]byte{' '}, headSlot-len(slot))...), nil
}

func decodeHeadSlot(slot, key []byte) (*Head, bool) {
	body, rest, ok := bytes.Cut(slot, []byte{'\n'})
	if !ok {
		return nil, false
	}
	mac, _, ok := bytes.Cut(rest, []byte{'\n'})
	if !ok || !hmac.Equal(mac, []byte(headMAC(key, body))) {
		return nil, false
	}
	var h Head
	if err := json.Unmarshal(body, &h); err != nil {
		return nil, false
	}
	return &h, true
}

// ReadHead reads a head file: the newer of its two slots whose mac the key
// confirms. ErrNoHead when the file does not exist; a *HeadError when
// neither slot can be believed (damaged, or written under another key).
func ReadHead(path string, key []byte) (*Head, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoHead
	}
	if err != nil {
		return nil, err
	}
	var best *Head
	for i := 0; i+headSlot <= len(data); i += headSlot {
		if h, ok := decodeHeadSlot(data[i:i+headSlot], key); ok && (best == nil || h.Gen > best.Gen) {
			best = h
		}
	}
	if best == nil {
		return nil, &HeadError{Path: path, Reason: "no slot carries a valid mac (damaged, or written under another key)"}
	}
	return best, nil
}

// headFile is the writer's open head file.
type headFile struct {
	path string
	key  []byte
	f    *os.File
	fi   fs.FileInfo
	gen  uint64
}

// openHeadFile opens (creating, durably, if needed) the head file; gen
// continues the generation read from it.
func openHeadFile(path string, key []byte, gen uint64) (*headFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal: creating the head's directory: %w", err)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if err := durable.WriteFile(path, bytes.Repeat([]byte{' '}, 2*headSlot), 0o600); err != nil {
			return nil, fmt.Errorf("journal: creating the head %s: %w", path, err)
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("journal: opening the head %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &headFile{path: path, key: key, f: f, fi: fi, gen: gen}, nil
}

// write makes h the durable head: the next slot in turn, then fdatasync.
func (hf *headFile) write(h *Head) error {
	h.Gen = hf.gen + 1
	slot, err := encodeHeadSlot(h, hf.key)
	if err != nil {
		return err
	}
	if _, err := hf.f.WriteAt(slot, int64(h.Gen%2)*headSlot); err != nil {
		return fmt.Errorf("journal: writing the head %s: %w", hf.path, err)
	}
	if err := syncData(hf.f); err != nil {
		return fmt.Errorf("journal: syncing the head %s: %w", hf.path, err)
	}
	hf.gen = h.Gen
	return nil
}

// moved reports what happened when the path no longer names the open head
// file, or "".
func (hf *headFile) moved() string {
	st, err := os.Stat(hf.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "the journal head " + hf.path + " was removed"
	case err != nil:
		return ""
	case !os.SameFile(st, hf.fi):
		return "the journal head " + hf.path + " was replaced by another file"
	}
	return ""
}

func (hf *headFile) close() error {
	if hf == nil {
		return nil
	}
	return hf.f.Close()
}
