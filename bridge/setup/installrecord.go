package setup

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// InstallRecord is what `leasedeck install` changed around a client's
// file besides its hook entries: whether the file and its directories
// were there, the mode it had, the proxy exceptions it added. install
// keeps it in the workspace's state directory (which no lease may read or
// write), so that uninstall takes back exactly that and not what an
// agent wrote beside the file.
type InstallRecord struct {
	Path   string `json:"path"`
	Client string `json:"client"`
	// Existed: the file was there before the first install.
	Existed bool `json:"existed"`
	// ModeBefore is the file's mode before the first install (when it
	// existed); ModeWritten the mode install left it with.
	ModeBefore  os.FileMode `json:"mode_before,omitempty"`
	ModeWritten os.FileMode `json:"mode_written"`
	// DirsCreated are the file's ancestor directories install created,
	// outermost first.
	DirsCreated []string `json:"dirs_created,omitempty"`
	// Env are the proxy exceptions install added to the settings' env
	// (Claude Code's HTTP hooks), EnvCreated that install created env.
	Env        []EnvAddition `json:"env,omitempty"`
	EnvCreated bool          `json:"env_created,omitempty"`
	// WrittenSHA256 is the hash of a plugin file install wrote whole
	// (OpenCode, pi): a file that no longer has it was edited since.
	WrittenSHA256 string `json:"written_sha256,omitempty"`
}

// EnvAddition is what install added to one env variable.
type EnvAddition struct {
	Key string `json:"key"`
	// Hosts are the exceptions install appended, none of which was there.
	Hosts []string `json:"hosts"`
	// KeyCreated: the variable was not in env before.
	KeyCreated bool `json:"key_created,omitempty"`
}

// Carry keeps what an earlier install recorded when this install
// replaces a file that already held leasedeck's entries (held says so):
// the file as the user had it is the earlier record's, and the proxy
// exceptions of both installs are ours. Without held the earlier record
// is of a file since uninstalled or rewritten, and is dropped.
func (r *InstallRecord) Carry(prev *InstallRecord, held bool) {
	if prev == nil || !held || prev.Path != r.Path {
		return
	}
	r.Existed, r.ModeBefore, r.DirsCreated = prev.Existed, prev.ModeBefore, prev.DirsCreated
	r.EnvCreated = r.EnvCreated || prev.EnvCreated
	for _, old := range prev.Env {
		i := slices.IndexFunc(r.Env, func(a EnvAddition) bool { return a.Key == old.Key })
		if i < 0 {
			r.Env = append(r.Env, old)
			continue
		}
		cur := &r.Env[i]
		cur.KeyCreated = cur.KeyCreated || old.KeyCreated
		for _, h := range old.Hosts {
			if !slices.Contains(cur.Hosts, h) {
				cur.Hosts = append(cur.Hosts, h)
			}
		}
	}
}

// CreatedDirs are the directories of dirs_created that are ancestors of
// the file, innermost first (the order to remove them in); anything else
// in the record is ignored.
func (r *InstallRecord) CreatedDirs() []string {
	var out []string
	for _, d := range r.DirsCreated {
		d = filepath.Clean(d)
		if rel, err := filepath.Rel(d, filepath.Dir(r.Path)); err == nil && filepath.IsAbs(d) && d != filepath.Dir(d) && rel != ".." && !strings.HasPrefix(rel, "../") {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// MissingDirs are dir and those of its ancestors that do not exist,
// outermost first: what os.MkdirAll(dir) would create.
func MissingDirs(dir string) []string {
	var out []string
	for d := filepath.Clean(dir); d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		out = append([]string{d}, out...)
	}
	return out
}

// takeBackEnv removes from env exactly the exceptions the record says
// install added, keeping the user's own (also those added since), drops
// a variable install created that is left empty, and env itself when
// install created it and it is left empty.
func takeBackEnv(root *jsonObject, rec *InstallRecord) {
	ev, _ := root.get("env")
	env, ok := ev.(*jsonObject)
	if !ok {
		return
	}
	for _, add := range rec.Env {
		cur, present := env.get(add.Key)
		cs, isString := cur.(string)
		if !present || !isString {
			continue
		}
		var kept []string
		for _, h := range strings.Split(cs, ",") {
			if !slices.Contains(add.Hosts, strings.TrimSpace(h)) {
				kept = append(kept, h)
			}
		}
		switch {
		case len(kept) == 0 && add.KeyCreated:
			dropMember(env, add.Key)
		default:
			env.set(add.Key, strings.Join(kept, ","))
		}
	}
	if len(env.Members) == 0 && rec.EnvCreated {
		dropMember(root, "env")
	}
}
