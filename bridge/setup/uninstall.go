package setup

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/leasedeck/leasedeck/bridge"
)

// SHA256Hex is the hex SHA-256 of b (an InstallRecord's WrittenSHA256).
func SHA256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// UninstallOptions say whose entries to remove and what the file was
// before install.
type UninstallOptions struct {
	Owner Owner
	// Backup is the file as it was before install wrote it (install keeps
	// it beside the file); HaveBackup is false when there is none (install
	// created the file, or the backup was removed).
	Backup     []byte
	HaveBackup bool
	// Record is what install recorded beside its entries (nil for an
	// install that kept none): with it exactly the proxy exceptions
	// install added go, and a plugin file edited since is left alone.
	Record *InstallRecord
}

// UninstallResult is a settings file with leasedeck's entries removed.
type UninstallResult struct {
	// Removed lists the events that lost an entry; empty when the file
	// had none of ours (then nothing is to be written).
	Removed []string
	// Bytes is the file's new content.
	Bytes []byte
	// Restored: nothing but leasedeck's entries changed since install, so
	// Bytes is the backup, byte for byte.
	Restored bool
	// Delete: install created the file and it holds nothing else now.
	Delete bool
	// Edited: a plugin file install wrote whole was changed since, so it
	// is no longer only leasedeck's; nothing is to be written or deleted.
	Edited bool
}

// Uninstall removes from current every handler install wrote for
// opts.Owner, in every event (the same handlers install would update, see
// Owner), and the matcher groups and event lists left empty by that. When
// the result is the file as it was before install (the backup, read the
// same way, and holding none of ours), the backup's bytes are the result,
// so the user's formatting comes back exactly; otherwise the user changed
// the file since, and only leasedeck's entries go, everything else kept
// in its order. Uninstalling from a file with none of ours changes
// nothing.
func Uninstall(client string, current []byte, opts UninstallOptions) (UninstallResult, error) {
	a, err := bridge.AdapterFor(client)
	if err != nil {
		return UninstallResult{}, err
	}
	if bridge.IsPluginClient(a.Name()) {
		return uninstallPlugin(a.Name(), current, opts), nil
	}
	root, hooks, err := hooksOf(current)
	if err != nil {
		return UninstallResult{}, err
	}
	var res UninstallResult
	httpRemoved := false
	if hooks == nil || !removeOurs(a.Name(), hooks, opts.Owner, &res.Removed, &httpRemoved) {
		res.Bytes = current
		return res, nil
	}
	if len(hooks.Members) == 0 {
		dropMember(root, "hooks")
	}
	switch {
	case httpRemoved && opts.Record != nil:
		takeBackEnv(root, opts.Record)
	case httpRemoved:
		undoNoProxy(root, opts)
	}
	if a.Name() == "copilot" {
		undoVersion(root, opts)
	}
	if opts.HaveBackup {
		if before, ok := restorable(a.Name(), opts.Backup, opts.Owner); ok && bytes.Equal(canonicalForm(root), before) {
			res.Bytes, res.Restored = opts.Backup, true
			return res, nil
		}
	}
	if !opts.HaveBackup && len(root.Members) == 0 {
		res.Delete = true
		return res, nil
	}
	res.Bytes = encodeOrdered(root, detectIndent(current))
	return res, nil
}

// removeOurs removes owner's handlers from hooks, noting the events.
func removeOurs(client string, hooks *jsonObject, owner Owner, events *[]string, http *bool) bool {
	return walkHandlers(client, hooks, func(event string, h *jsonObject) bool {
		if !owner.owns(h) {
			return false
		}
		if t, _ := h.get("type"); t == "http" {
			*http = true
		}
		if len(*events) == 0 || (*events)[len(*events)-1] != event {
			*events = append(*events, event)
		}
		return true
	})
}

// restorable reads the backup as Uninstall reads the current file: its
// canonical form, and false when it holds entries of ours (restoring it
// would put leasedeck's hooks back) or cannot be read.
func restorable(client string, backup []byte, owner Owner) ([]byte, bool) {
	root, hooks, err := hooksOf(backup)
	if err != nil {
		return nil, false
	}
	if hooks != nil {
		var none []string
		var http bool
		if removeOurs(client, hooks, owner, &none, &http) {
			return nil, false
		}
		if len(hooks.Members) == 0 {
			dropMember(root, "hooks")
		}
	}
	return canonicalForm(root), true
}

// canonicalForm is the ordered tree's compact bytes: two files with the
// same members in the same order have the same form, whatever their
// whitespace.
func canonicalForm(root *jsonObject) []byte { return encodeOrdered(root, "") }

func dropMember(o *jsonObject, key string) {
	kept := o.Members[:0]
	for _, m := range o.Members {
		if m.Key != key {
			kept = append(kept, m)
		}
	}
	o.Members = kept
}

// uninstallPlugin: a plugin file is leasedeck's own, all of it. One that
// install wrote for this workspace goes: the file install replaced comes
// back from the backup, byte for byte (unless the backup is itself an
// older leasedeck plugin), and without a backup the file is deleted. A
// file that is not leasedeck's, or another workspace's, stays.
func uninstallPlugin(client string, current []byte, opts UninstallOptions) UninstallResult {
	res := UninstallResult{Bytes: current}
	in := inspectPlugin(client, current, opts.Owner)
	if len(in.Hooks) == 0 || !in.Hooks[0].Ours {
		return res
	}
	for _, h := range in.Hooks {
		res.Removed = append(res.Removed, h.Event)
	}
	if opts.Record != nil && opts.Record.WrittenSHA256 != "" && opts.Record.WrittenSHA256 != SHA256Hex(current) {
		res.Edited = true
		return res
	}
	if opts.HaveBackup && !bytes.Contains(opts.Backup, []byte(pluginMarker)) {
		res.Bytes, res.Restored = opts.Backup, true
		return res
	}
	res.Bytes, res.Delete = nil, true
	return res
}

// undoNoProxy takes back what install added beside Claude Code's HTTP
// hooks (ensureNoProxy): the loopback hosts in env.NO_PROXY and
// env.no_proxy. With a backup the two keys go back to the backup's values
// (or away, when it had none); without one (install created the file)
// both keys go, and an env left empty goes.
func undoNoProxy(root *jsonObject, opts UninstallOptions) {
	ev, _ := root.get("env")
	env, ok := ev.(*jsonObject)
	if !ok {
		return
	}
	var before *jsonObject
	if opts.HaveBackup {
		if broot, _, err := hooksOf(opts.Backup); err == nil && broot != nil {
			bv, _ := broot.get("env")
			before, _ = bv.(*jsonObject)
		}
	}
	for _, key := range []string{"NO_PROXY", "no_proxy"} {
		if _, present := env.get(key); !present {
			continue
		}
		if opts.HaveBackup {
			if old, had := getMember(before, key); had {
				env.set(key, old)
			} else {
				dropMember(env, key)
			}
			continue
		}
		// No backup: install created the file, and wrote the key whole
		// (loopback and the exceptions of install's own environment).
		dropMember(env, key)
	}
	if len(env.Members) == 0 && (before == nil || len(before.Members) > 0) {
		dropMember(root, "env")
	}
}

func getMember(o *jsonObject, key string) (any, bool) {
	if o == nil {
		return nil, false
	}
	return o.get(key)
}

// undoVersion takes back the "version": 1 install adds to a Copilot CLI
// hooks file that has none: when the file before install had none (or
// there was no file).
func undoVersion(root *jsonObject, opts UninstallOptions) {
	if v, ok := root.get("version"); !ok || v != json.Number("1") {
		return
	}
	if opts.HaveBackup {
		if broot, _, err := hooksOf(opts.Backup); err == nil && broot != nil {
			if _, had := broot.get("version"); had {
				return
			}
		}
	}
	dropMember(root, "version")
}
