package setup

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
)

// ClaudeHTTPPath is the URL path the registry serves Claude Code's HTTP
// hooks on (package hookhttp).
const ClaudeHTTPPath = "/hooks/claude-code"

// HTTPHooks is where Claude Code's HTTP hooks go and how they prove they
// come from the hook configuration install wrote.
type HTTPHooks struct {
	// Base is the endpoint's URL without a query, e.g.
	// "http://127.0.0.1:43117/hooks/claude-code"; each hook adds its
	// timeout, so the registry ends its answer before the client gives up.
	Base string
	// Token is the endpoint's bearer token, sent in the Authorization
	// header (the settings file must be readable by this user only).
	Token string
	// NoProxy is the NO_PROXY value of the environment install ran in,
	// kept in the settings' env beside loopback so that the hooks never go
	// through a proxy and the user's other exceptions still hold.
	NoProxy string
}

// loopbackNoProxy are the hosts the hook POST must reach directly.
var loopbackNoProxy = []string{"127.0.0.1", "localhost", "::1"}

// httpHandler is one event's HTTP hook. A gate, and the prompt that opens
// a turn, block when the hook fails (server down, slow, non-2xx, not JSON),
// as the command hook denies when it gets no answer; without it Claude
// Code runs the call.
func httpHandler(spec bridge.EventSpec, opts InstallOptions, t time.Duration) *jsonObject {
	secs := ceilSeconds(t)
	h := &jsonObject{}
	h.set("type", "http")
	h.set("url", opts.HTTP.Base+"?timeout="+strconv.FormatInt(secs, 10))
	h.set("timeout", json.Number(strconv.FormatInt(secs, 10)))
	headers := &jsonObject{}
	headers.set("Authorization", "Bearer "+opts.HTTP.Token)
	h.set("headers", headers)
	if spec.Gate || spec.Native == "UserPromptSubmit" {
		h.set("onFailure", "block")
	}
	return h
}

// isOurHTTPHook: an HTTP hook to a leasedeck registry's endpoint on
// loopback, on whatever port (an endpoint recorded again after the state
// directory was lost has another).
func isOurHTTPHook(h *jsonObject) bool {
	kind, _ := h.get("type")
	u, _ := h.get("url")
	us, _ := u.(string)
	rest, ok := strings.CutPrefix(us, "http://127.0.0.1:")
	if kind != "http" || !ok {
		return false
	}
	port, path, _ := strings.Cut(rest, "/")
	_, err := strconv.Atoi(port)
	return err == nil && strings.HasPrefix("/"+path, ClaudeHTTPPath)
}

func mustGet(o *jsonObject, k string) any {
	v, _ := o.get(k)
	return v
}

// ensureNoProxy puts loopback in the settings' env NO_PROXY and no_proxy
// (a client's proxy library reads either), keeping the exceptions already
// there or in install's own environment: the proxy variables apply to an
// HTTP hook's POST, which would carry the token to the proxy and take its
// answer for the registry's.
func ensureNoProxy(root *jsonObject, fromEnv string, res *InstallResult) []string {
	ev, _ := root.get("env")
	env, ok := ev.(*jsonObject)
	if ev != nil && !ok {
		return []string{`"env" in this file is not an object: set NO_PROXY=127.0.0.1 for Claude Code yourself, or the hooks may go through a proxy`}
	}
	if env == nil {
		env = &jsonObject{}
		res.EnvCreated = true
	}
	var notes []string
	for _, key := range []string{"NO_PROXY", "no_proxy"} {
		cur, had := env.get(key)
		cs, _ := cur.(string)
		added := newNoProxyHosts(cs, fromEnv)
		if len(added) == 0 {
			continue
		}
		// The user's value stays as it is, the hosts appended after it,
		// so that uninstall can take exactly them out again.
		merged := strings.Join(added, ",")
		if cs != "" {
			merged = cs + "," + merged
		}
		env.set(key, merged)
		res.Updated = append(res.Updated, "env."+key)
		res.Env = append(res.Env, EnvAddition{Key: key, Hosts: added, KeyCreated: !had})
		notes = append(notes, fmt.Sprintf("env.%s is %q: the hooks POST to loopback directly, never through a proxy", key, merged))
	}
	if len(env.Members) > 0 {
		root.set("env", env)
	}
	return notes
}

// newNoProxyHosts are the hosts mergeNoProxy adds to current: those of
// install's environment and loopback that current does not have.
func newNoProxyHosts(current, fromEnv string) []string {
	var have []string
	for _, h := range strings.Split(current, ",") {
		have = append(have, strings.TrimSpace(h))
	}
	var added []string
	for _, h := range strings.Split(mergeNoProxy(current, fromEnv), ",") {
		if !slices.Contains(have, h) {
			added = append(added, h)
		}
	}
	if slices.Contains(have, "*") {
		return nil
	}
	return added
}

func mergeNoProxy(lists ...string) string {
	var out []string
	for _, l := range lists {
		for _, h := range strings.Split(l, ",") {
			if h = strings.TrimSpace(h); h != "" && !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	for _, h := range loopbackNoProxy {
		if !slices.Contains(out, h) && !slices.Contains(out, "*") {
			out = append(out, h)
		}
	}
	return strings.Join(out, ",")
}

// HasHTTPHooks reports whether a Claude Code settings file holds
// leasedeck's HTTP hooks.
func HasHTTPHooks(settings []byte) bool {
	v, err := decodeOrdered(settings)
	if err != nil {
		return false
	}
	root, _ := v.(*jsonObject)
	if root == nil {
		return false
	}
	hv, _ := root.get("hooks")
	hooks, _ := hv.(*jsonObject)
	if hooks == nil {
		return false
	}
	for _, ev := range hooks.Members {
		groups, _ := ev.Val.([]any)
		for _, g := range groups {
			group, _ := g.(*jsonObject)
			if group == nil {
				continue
			}
			inner, _ := group.get("hooks")
			handlers, _ := inner.([]any)
			for _, h := range handlers {
				if o, ok := h.(*jsonObject); ok && isOurHTTPHook(o) {
					return true
				}
			}
		}
	}
	return false
}
