package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/leasedeck/leasedeck/bridge/setup"
	"github.com/leasedeck/leasedeck/durable"
	"github.com/leasedeck/leasedeck/workspace"
)

// installRecordPath is where install keeps what it changed around a
// client's file: in the workspace's state directory, which no lease may
// read or write (the backup beside the file is within an agent's reach).
func installRecordPath(w workspace.Workspace, path string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(path)))
	return filepath.Join(w.StateDir(), "installs", hex.EncodeToString(sum[:8])+".json")
}

// loadInstallRecord is the record of path, nil when there is none (an
// install from before records were kept) or it is not path's.
func loadInstallRecord(w workspace.Workspace, path string) *setup.InstallRecord {
	b, err := os.ReadFile(installRecordPath(w, path))
	if err != nil {
		return nil
	}
	var rec setup.InstallRecord
	if json.Unmarshal(b, &rec) != nil || filepath.Clean(rec.Path) != filepath.Clean(path) {
		return nil
	}
	return &rec
}

func saveInstallRecord(w workspace.Workspace, rec *setup.InstallRecord) error {
	p := installRecordPath(w, rec.Path)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(rec, "", "  ")
	return durable.WriteFile(p, append(b, '\n'), 0o600)
}

func dropInstallRecord(w workspace.Workspace, path string) {
	os.Remove(installRecordPath(w, path))
}

// installWrite is one file install puts on disk.
type installWrite struct {
	client   string
	path     string
	existing []byte // nil: no file
	merged   []byte
	// holdsToken: the file carries the HTTP hooks' token (this user only).
	holdsToken bool
	// plugin: a file leasedeck writes whole (OpenCode, pi).
	plugin bool
	owner  setup.Owner
	// env, envCreated: the proxy exceptions the merge added.
	env        []setup.EnvAddition
	envCreated bool
}

// writeInstalled writes a client's file durably and records what it
// changed around it. The file as the user had it is kept beside it (the
// backup uninstall restores) unless the file already held leasedeck's
// entries: then the backup and the record of the first install stay the
// user's, so that installing again never makes leasedeck's own output the
// file to restore.
func writeInstalled(w workspace.Workspace, in installWrite, e *env) int {
	held := in.existing != nil && holdsOurs(in.client, in.existing, in.owner)
	rec := &setup.InstallRecord{Path: in.path, Client: in.client, Env: in.env, EnvCreated: in.envCreated,
		DirsCreated: setup.MissingDirs(filepath.Dir(in.path))}
	if err := os.MkdirAll(filepath.Dir(in.path), 0o755); err != nil {
		e.errorf("%v", err)
		return exitInvalid
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(in.path); err == nil {
		mode = st.Mode().Perm()
		rec.Existed, rec.ModeBefore = true, mode
	}
	if in.holdsToken && mode&0o077 != 0 {
		// The file now holds the hook token: no one else may read it.
		fmt.Fprintf(e.stderr, "note: %s holds the HTTP hooks' token, so it is made readable by you only (mode 0600, was %#o; uninstall gives the mode back)\n", in.path, mode)
		mode = 0o600
	}
	rec.ModeWritten = mode
	if in.plugin {
		rec.WrittenSHA256 = setup.SHA256Hex(in.merged)
	}
	rec.Carry(loadInstallRecord(w, in.path), held)
	if err := saveInstallRecord(w, rec); err != nil {
		e.errorf("cannot record the install of %s in the state directory: %v", in.path, err)
		return exitInvalid
	}
	if in.existing != nil && !held {
		// Renamed into place, as the file itself is: never written
		// through whatever is at the backup's name (a link planted there).
		if err := durable.WriteFile(in.path+backupSuffix, in.existing, mode); err != nil {
			e.errorf("cannot back up %s: %v", in.path, err)
			return exitInvalid
		}
	}
	if err := durable.WriteFile(in.path, in.merged, mode); err != nil {
		e.errorf("cannot write %s: %v", in.path, err)
		return exitInvalid
	}
	return exitOK
}

// holdsOurs reports whether a client's file holds this workspace's
// leasedeck entries (or is its plugin).
func holdsOurs(client string, b []byte, owner setup.Owner) bool {
	res, err := setup.Uninstall(client, b, setup.UninstallOptions{Owner: owner})
	return err == nil && len(res.Removed) > 0
}

// removeCreatedDirs removes, innermost first, the directories install
// created for a file it created, as long as they are empty.
func removeCreatedDirs(rec *setup.InstallRecord) []string {
	var removed []string
	if rec == nil || rec.Existed {
		return nil
	}
	for _, d := range rec.CreatedDirs() {
		if err := os.Remove(d); err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				break // not empty: it holds something else now, and so do its parents
			}
			continue
		}
		removed = append(removed, d)
	}
	return removed
}

// restoredMode is the mode uninstall leaves the file with: the user's
// from before install when install changed it and nobody changed it
// since, the current one otherwise.
func restoredMode(rec *setup.InstallRecord, current os.FileMode) os.FileMode {
	if rec != nil && rec.Existed && rec.ModeBefore != 0 && current == rec.ModeWritten {
		return rec.ModeBefore
	}
	return current
}
