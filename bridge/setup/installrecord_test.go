package setup

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// randomNoProxy is a NO_PROXY value as users write them: absent, empty,
// hosts with odd spacing, loopback already there, or "*".
func randomNoProxy(r *rand.Rand) (string, bool) {
	hosts := []string{"corp.example", " .internal", "10.0.0.0/8", "127.0.0.1", "localhost", "*", "::1", "a.example "}
	switch r.IntN(4) {
	case 0:
		return "", false
	case 1:
		return "", true
	}
	var parts []string
	for range 1 + r.IntN(4) {
		parts = append(parts, hosts[r.IntN(len(hosts))])
	}
	return strings.Join(parts, ","), true
}

// randomSettings is a Claude Code settings file a user could have: maybe
// an env with proxy exceptions and other variables, maybe hooks of their
// own, in some member order and indentation.
func randomSettings(r *rand.Rand) string {
	var members []string
	env := []string{}
	for _, key := range []string{"NO_PROXY", "no_proxy"} {
		if v, ok := randomNoProxy(r); ok {
			b, _ := json.Marshal(v)
			env = append(env, `"`+key+`": `+string(b))
		}
	}
	if r.IntN(2) == 0 {
		env = append(env, `"FOO": "1"`)
	}
	r.Shuffle(len(env), func(i, j int) { env[i], env[j] = env[j], env[i] })
	if len(env) > 0 || r.IntN(3) == 0 {
		members = append(members, `"env": {`+strings.Join(env, ", ")+`}`)
	}
	if r.IntN(2) == 0 {
		members = append(members, `"model": "x"`)
	}
	if r.IntN(2) == 0 {
		members = append(members, `"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-own-check"}]}]}`)
	}
	r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	sep := []string{",\n  ", ", ", ",\n\t"}[r.IntN(3)]
	return "{" + strings.Join(members, sep) + "}\n"
}

// Property: for any user file and any NO_PROXY in install's environment,
// install (HTTP hooks) then uninstall with install's record gives back
// the bytes; with a proxy exception and a member the user added in
// between, exactly the user's file plus their edit comes back.
func TestInstallRecordTakesBackExactlyOurs(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 1))
	for i := range 2000 {
		before := randomSettings(r)
		fromEnv, _ := randomNoProxy(r)
		opts := installOpts("claude-code")
		opts.HTTP = &HTTPHooks{Base: "http://127.0.0.1:43117" + ClaudeHTTPPath, Token: "tok", NoProxy: fromEnv}
		in, err := Install("claude-code", []byte(before), opts)
		if err != nil {
			t.Fatalf("%d: %v\n%s", i, err, before)
		}
		rec := &InstallRecord{Env: in.Env, EnvCreated: in.EnvCreated}
		u := uninstallOpts("claude-code")
		u.Backup, u.HaveBackup, u.Record = []byte(before), true, rec
		res, err := Uninstall("claude-code", in.Bytes, u)
		if err != nil || !res.Restored || string(res.Bytes) != before {
			t.Fatalf("%d: install env %q, not restored (%v):\n%s\ngot\n%s\ninstalled\n%s", i, fromEnv, err, before, res.Bytes, in.Bytes)
		}
		// The user's edit in between.
		var installed, want map[string]any
		json.Unmarshal(in.Bytes, &installed)
		json.Unmarshal([]byte(before), &want)
		installed["theme"], want["theme"] = "dark", "dark"
		env, _ := installed["env"].(map[string]any)
		wenv, _ := want["env"].(map[string]any)
		if wenv == nil {
			wenv = map[string]any{}
			want["env"] = wenv
		}
		v, _ := env["NO_PROXY"].(string)
		env["NO_PROXY"] = v + ",user.example"
		if old, ok := wenv["NO_PROXY"].(string); ok && old != "" {
			wenv["NO_PROXY"] = old + ",user.example"
		} else {
			wenv["NO_PROXY"] = "user.example"
		}
		edited, _ := json.Marshal(installed)
		u.Record = &InstallRecord{Env: in.Env, EnvCreated: in.EnvCreated}
		res, err = Uninstall("claude-code", edited, u)
		var got map[string]any
		if err != nil || json.Unmarshal(res.Bytes, &got) != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%d: after the user's edit (%v):\n%s\ngot\n%s\nwant %v", i, err, edited, res.Bytes, want)
		}
	}
}

// Installing again over a file that holds our entries keeps the first
// install's picture of the user's file, and the proxy exceptions of both.
func TestInstallRecordCarry(t *testing.T) {
	first := &InstallRecord{Path: "/h/.claude/settings.json", Existed: true, ModeBefore: 0o644, ModeWritten: 0o600,
		Env: []EnvAddition{{Key: "NO_PROXY", Hosts: []string{"127.0.0.1"}, KeyCreated: true}}, EnvCreated: true}
	second := &InstallRecord{Path: first.Path, Existed: true, ModeBefore: 0o600, ModeWritten: 0o600,
		Env: []EnvAddition{{Key: "NO_PROXY", Hosts: []string{"proxyless.example"}}}}
	second.Carry(first, true)
	want := &InstallRecord{Path: first.Path, Existed: true, ModeBefore: 0o644, ModeWritten: 0o600,
		Env: []EnvAddition{{Key: "NO_PROXY", Hosts: []string{"proxyless.example", "127.0.0.1"}, KeyCreated: true}}, EnvCreated: true}
	if !reflect.DeepEqual(second, want) {
		t.Fatalf("%+v", second)
	}
	fresh := &InstallRecord{Path: first.Path, ModeWritten: 0o644}
	fresh.Carry(first, false)
	if fresh.ModeBefore != 0 || fresh.EnvCreated {
		t.Fatalf("a record of a file that no longer holds ours was carried: %+v", fresh)
	}
	other := &InstallRecord{Path: "/elsewhere", ModeWritten: 0o644}
	other.Carry(first, true)
	if other.Existed {
		t.Fatalf("another file's record was carried: %+v", other)
	}
}

// Only ancestors of the file are removed, innermost first, whatever the
// record says.
func TestCreatedDirsAreTheFilesAncestors(t *testing.T) {
	rec := &InstallRecord{Path: "/w/.claude/sub/settings.json", DirsCreated: []string{"/w/.claude", "/w/.claude/sub", "/etc", "relative", "/w/.claudex", "/"}}
	got := rec.CreatedDirs()
	want := []string{"/w/.claude/sub", "/w/.claude"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%v", got)
	}
}
