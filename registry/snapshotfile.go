package registry

import (
	"bytes"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/durable"
	"github.com/leasedeck/leasedeck/journal"
)

// A snapshot file is three lines: a header (where in the journal it was
// taken, for which workspace), the folded state, and the HMAC of the two
// under the deployment key, after a context string no journal line or
// lease can begin with. It lives in the per-user state directory; whoever
// writes it without the key writes a file that is not believed.
const (
	snapshotFormat  = 2 // 2: each lease carries its spend series
	snapshotContext = "leasedeck-registry-snapshot/1\n"
	snapshotPrefix  = "snapshot-"
	snapshotSuffix  = ".json"
	// maxSnapshotBytes bounds what is read of one file.
	maxSnapshotBytes = 1 << 30
)

// snapshotHeader says what a snapshot is of.
type snapshotHeader struct {
	Format        int                 `json:"format"`
	Workspace     string              `json:"workspace"`
	JournalDir    string              `json:"journal_dir"`
	TakenAt       time.Time           `json:"taken_at"`
	Files         [2]journal.Position `json:"files"` // by journal.Kind
	CheckpointSeq uint64              `json:"checkpoint_seq"`
}

// newer orders snapshots by how far into the journal they were taken.
func (h *snapshotHeader) newer(o *snapshotHeader) bool {
	if h.Files[journal.Audit].Seq != o.Files[journal.Audit].Seq {
		return h.Files[journal.Audit].Seq > o.Files[journal.Audit].Seq
	}
	return h.Files[journal.Leases].Seq > o.Files[journal.Leases].Seq
}

func (h *snapshotHeader) String() string {
	return fmt.Sprintf("leases seq %d, audit seq %d", h.Files[journal.Leases].Seq, h.Files[journal.Audit].Seq)
}

func snapshotMAC(key Key, header, state []byte) []byte {
	msg := make([]byte, 0, len(snapshotContext)+len(header)+len(state)+1)
	msg = append(append(append(append(msg, snapshotContext...), header...), '\n'), state...)
	return []byte(key.MAC(msg))
}

// encodeSnapshot renders a snapshot file, and refuses one that would not
// read back as the state it was taken of (text that JSON cannot carry
// exactly, say): a snapshot is written right or not at all.
func encodeSnapshot(key Key, h snapshotHeader, st *snapState) ([]byte, error) {
	hb, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	sb, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	var back snapState
	if err := json.Unmarshal(sb, &back); err != nil {
		return nil, err
	}
	if !reflect.DeepEqual(&back, st) {
		return nil, errors.New("the state does not read back as it was written (it holds text JSON cannot carry exactly); no snapshot is written")
	}
	out := make([]byte, 0, len(hb)+len(sb)+80)
	out = append(append(out, hb...), '\n')
	out = append(append(out, sb...), '\n')
	out = append(append(out, snapshotMAC(key, hb, sb)...), '\n')
	return out, nil
}

// decodeSnapshotHeader checks a file's mac and reads its header; the
// state line is returned undecoded.
func decodeSnapshotHeader(key Key, data []byte) (*snapshotHeader, []byte, error) {
	hb, rest, ok1 := bytes.Cut(data, []byte{'\n'})
	sb, rest, ok2 := bytes.Cut(rest, []byte{'\n'})
	mac, rest, ok3 := bytes.Cut(rest, []byte{'\n'})
	if !ok1 || !ok2 || !ok3 || len(rest) != 0 {
		return nil, nil, errors.New("not a snapshot file (three lines: header, state, mac); truncated or damaged")
	}
	if !hmac.Equal(mac, snapshotMAC(key, hb, sb)) {
		return nil, nil, errors.New("mac mismatch: written without this workspace's key, or changed since")
	}
	var h snapshotHeader
	if err := json.Unmarshal(hb, &h); err != nil {
		return nil, nil, fmt.Errorf("header: %v", err)
	}
	if h.Format != snapshotFormat {
		return nil, nil, fmt.Errorf("format %d, this registry reads %d", h.Format, snapshotFormat)
	}
	return &h, sb, nil
}

// snapshotStore is the directory snapshots are kept in.
type snapshotStore struct {
	dir        string
	key        Key
	workspace  string
	journalDir string
}

// write makes a snapshot durable (temp file, fsync, rename, directory
// fsync) and removes every other snapshot file but prev (the one this
// registry wrote before, "" for none): a file left from another journal
// (one started over) or by someone else would otherwise outlive the
// registry's own, named by a higher seq.
func (ss snapshotStore) write(h snapshotHeader, st *snapState, prev string) (string, error) {
	h.Format, h.Workspace, h.JournalDir = snapshotFormat, ss.workspace, ss.journalDir
	data, err := encodeSnapshot(ss.key, h, st)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(ss.dir, 0o700); err != nil {
		return "", err
	}
	name := fmt.Sprintf("%s%020d-%020d%s", snapshotPrefix, h.Files[journal.Audit].Seq, h.Files[journal.Leases].Seq, snapshotSuffix)
	path := filepath.Join(ss.dir, name)
	if err := durable.WriteFile(path, data, 0o600); err != nil {
		return "", err
	}
	for _, n := range ss.names() {
		if n != name && n != filepath.Base(prev) {
			os.Remove(filepath.Join(ss.dir, n))
		}
	}
	return path, nil
}

func (ss snapshotStore) names() []string {
	ents, err := os.ReadDir(ss.dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); strings.HasPrefix(n, snapshotPrefix) && strings.HasSuffix(n, snapshotSuffix) && e.Type().IsRegular() {
			out = append(out, n)
		}
	}
	return out
}

// loadedSnapshot is a snapshot whose mac and binding checked, decoded.
type loadedSnapshot struct {
	path   string
	header *snapshotHeader
	state  *snapState
}

// newest reads every snapshot file and returns the newest one that
// checks (mac, format, workspace, journal directory) and decodes, with
// what was wrong with the others. None is not an error.
func (ss snapshotStore) newest() (*loadedSnapshot, []string) {
	var problems []string
	var best *snapshotHeader
	var bestPath string
	var bestState []byte
	for _, n := range ss.names() {
		path := filepath.Join(ss.dir, n)
		h, sb, err := ss.check(path)
		if err != nil {
			problems = append(problems, fmt.Sprintf("snapshot %s: %v", n, err))
			continue
		}
		if best == nil || h.newer(best) {
			best, bestPath, bestState = h, path, sb
		}
	}
	if best == nil {
		return nil, problems
	}
	var st snapState
	if err := json.Unmarshal(bestState, &st); err != nil {
		return nil, append(problems, fmt.Sprintf("snapshot %s: state: %v", filepath.Base(bestPath), err))
	}
	return &loadedSnapshot{path: bestPath, header: best, state: &st}, problems
}

func (ss snapshotStore) check(path string) (*snapshotHeader, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSnapshotBytes+1))
	if err != nil {
		return nil, nil, err
	}
	if len(data) > maxSnapshotBytes {
		return nil, nil, fmt.Errorf("larger than %d bytes", maxSnapshotBytes)
	}
	h, sb, err := decodeSnapshotHeader(ss.key, data)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case h.Workspace != ss.workspace:
		return nil, nil, fmt.Errorf("taken for workspace %q, not this one (%q)", h.Workspace, ss.workspace)
	case h.JournalDir != ss.journalDir:
		return nil, nil, fmt.Errorf("taken of journal %q, not this one (%q)", h.JournalDir, ss.journalDir)
	}
	return h, sb, nil
}
