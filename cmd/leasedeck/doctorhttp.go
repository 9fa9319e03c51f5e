package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/hookhttp"
	"github.com/leasedeck/leasedeck/workspace"
)

// httpHookConfig is what one of leasedeck's HTTP hooks in a Claude Code
// settings file names: where it POSTs, the Authorization header as
// written, and the variables Claude Code may put into its headers.
type httpHookConfig struct {
	URL            string                         `json:"url"`
	Headers        struct{ Authorization string } `json:"headers"`
	AllowedEnvVars []string                       `json:"allowedEnvVars"`
}

// doctorHTTPHooks checks the path Claude Code's HTTP hooks take, live:
// that the port they name is this workspace's registry's (on Linux, the
// listening socket belongs to the registry that proved itself by the
// handshake, so the token is never sent to another process), that it
// refuses a POST without the token and answers one with it, that the
// token the hooks send is the endpoint's (from the header, or from the
// variable it names, which allowedEnvVars must list), and that NO_PROXY
// covers loopback when a proxy variable is set.
func doctorHTTPHooks(r *doctorReport, w workspace.Workspace, check, path string, settings []byte, ep hookhttp.Endpoint, fix string) {
	add := func(status, detail, fix string) {
		r.add(finding{Subject: "claude-code", Check: check, Status: status, Detail: path + ": " + detail, Fix: fix})
	}
	hooks, env := httpHookConfigs(settings, ep)
	if len(hooks) == 0 {
		return
	}
	before := len(r.Findings)
	token, tokenOK := doctorHookToken(hooks, env, add, fix)
	doctorNoProxy(env, add, fix)
	restart := fmt.Sprintf("restart the registry: stop 'leasedeck serve' (or the cockpit) for %s, then leasedeck serve --workspace %s &", shellWord(w.Root), shellWord(w.Root))
	switch {
	case r.registryPID == 0:
		add(statusNote, "the HTTP hooks' endpoint "+ep.Base()+" was not probed: no registry answered", "")
		return
	case !listenerCheckable:
		add(statusNote, "the HTTP hooks' endpoint "+ep.Base()+" was probed without the token only: this OS cannot say which process listens on the port, so the token is not sent to it", "")
	default:
		owner, err := loopbackListener(ep.Port)
		switch {
		case err != nil:
			add(statusProblem, fmt.Sprintf("nothing serves the HTTP hooks on %s (%v): the registry (pid %d) does not listen there, and Claude Code refuses every call", ep.Addr(), err, r.registryPID), restart)
			return
		case owner != r.registryPID:
			add(statusProblem, fmt.Sprintf("%s is served by pid %d, not by this workspace's registry (pid %d): that process would receive the hooks' token", ep.Addr(), owner, r.registryPID),
				fmt.Sprintf("stop pid %d (kill %d), then %s", owner, owner, restart))
			return
		}
	}
	if code, err := probeHookEndpoint(ep, ""); err != nil || code != http.StatusUnauthorized {
		add(statusProblem, fmt.Sprintf("%s did not refuse a POST without the token (%s): it is not leasedeck's registry, or the registry does not check the token", ep.Base(), statusOrError(code, err)), restart)
		return
	}
	if !listenerCheckable || !tokenOK {
		return
	}
	if code, err := probeHookEndpoint(ep, token); err != nil || code != http.StatusOK {
		add(statusProblem, fmt.Sprintf("%s did not answer an authenticated probe (%s)", ep.Base(), statusOrError(code, err)), restart)
		return
	}
	if len(r.Findings) == before {
		add(statusOK, fmt.Sprintf("the HTTP hooks' endpoint %s is served by the registry (pid %d): it refuses a POST without the token and answers one with it", ep.Base(), r.registryPID), "")
	}
}

// httpHookConfigs are the settings' HTTP hooks to ep's path (any port),
// and the settings' env.
func httpHookConfigs(settings []byte, ep hookhttp.Endpoint) ([]httpHookConfig, map[string]string) {
	var file struct {
		Env   map[string]any `json:"env"`
		Hooks map[string][]struct {
			Hooks []json.RawMessage `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(settings, &file) != nil {
		return nil, nil
	}
	env := map[string]string{}
	for k, v := range file.Env {
		if s, ok := v.(string); ok {
			env[k] = s
		}
	}
	var out []httpHookConfig
	for _, groups := range file.Hooks {
		for _, g := range groups {
			for _, raw := range g.Hooks {
				var h httpHookConfig
				var kind struct{ Type string }
				json.Unmarshal(raw, &kind)
				if kind.Type != "http" || json.Unmarshal(raw, &h) != nil {
					continue
				}
				if u, err := url.Parse(h.URL); err == nil && u.Path == hookhttp.Path {
					out = append(out, h)
				}
			}
		}
	}
	return out, env
}

var headerVar = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)

// doctorHookToken works out the token the hooks send, as Claude Code
// would: the header as written, with the variables allowedEnvVars lists
// replaced from the settings' env or this environment (others are sent
// empty). The token itself is never printed.
func doctorHookToken(hooks []httpHookConfig, env map[string]string, add func(status, detail, fix string), fix string) (string, bool) {
	ep := hooks[0]
	for _, h := range hooks[1:] {
		if h.Headers.Authorization != ep.Headers.Authorization || !slices.Equal(h.AllowedEnvVars, ep.AllowedEnvVars) {
			add(statusProblem, "leasedeck's HTTP hooks do not all send the same Authorization header", fix)
			return "", false
		}
	}
	header := headerVar.ReplaceAllStringFunc(ep.Headers.Authorization, func(m string) string {
		name := headerVar.FindStringSubmatch(m)[1]
		if !slices.Contains(ep.AllowedEnvVars, name) {
			add(statusProblem, fmt.Sprintf("the hooks' Authorization header names $%s, which their allowedEnvVars (%v) does not list: Claude Code sends it empty and every call is refused", name, ep.AllowedEnvVars), fix)
			return ""
		}
		v, ok := env[name]
		if !ok {
			v, ok = os.LookupEnv(name)
		}
		if !ok || v == "" {
			add(statusProblem, fmt.Sprintf("$%s, which the hooks' Authorization header carries the token in, is set neither in the settings' env nor in this environment: Claude Code sends it empty and every call is refused", name), fix)
		}
		return v
	})
	tok, ok := strings.CutPrefix(header, "Bearer ")
	if !ok || tok == "" {
		add(statusProblem, "the hooks' Authorization header is not a bearer token: every call is refused", fix)
		return "", false
	}
	return tok, true
}

// proxyVars are the variables that send Claude Code's hook POSTs through
// a proxy unless NO_PROXY covers loopback.
var proxyVars = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"}

// doctorNoProxy: with a proxy variable set here, NO_PROXY (the settings'
// env, which Claude Code applies, else this environment) must cover
// 127.0.0.1, or the hooks and their token go to the proxy.
func doctorNoProxy(env map[string]string, add func(status, detail, fix string), fix string) {
	var set []string
	for _, v := range proxyVars {
		if os.Getenv(v) != "" || env[v] != "" {
			set = append(set, v)
		}
	}
	if len(set) == 0 {
		return
	}
	for _, key := range []string{"NO_PROXY", "no_proxy"} {
		v, ok := env[key]
		if !ok {
			v = os.Getenv(key)
		}
		if !coversLoopback(v) {
			add(statusProblem, fmt.Sprintf("%s is set but %s (%q) does not cover 127.0.0.1: the hooks' POSTs, token included, would go to the proxy", strings.Join(set, ", "), key, v), fix)
		}
	}
}

func coversLoopback(noProxy string) bool {
	for _, h := range strings.Split(noProxy, ",") {
		h = strings.TrimSpace(h)
		if h == "*" || h == "127.0.0.1" {
			return true
		}
		if _, n, err := net.ParseCIDR(h); err == nil && n.Contains(net.IPv4(127, 0, 0, 1)) {
			return true
		}
	}
	return false
}

// probeHookEndpoint POSTs a payload no adapter knows (so nothing is asked
// of the registry, nothing journaled) to the endpoint, with token as the
// bearer ("" for none), and returns the status; a 200 must carry JSON.
func probeHookEndpoint(ep hookhttp.Endpoint, token string) (int, error) {
	body := []byte(`{"hook_event_name":"LeasedeckDoctorProbe","session_id":"leasedeck-doctor-probe"}`)
	req, err := http.NewRequest(http.MethodPost, ep.Base()+"?timeout=5", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	// Straight to loopback, never through a proxy of this environment.
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil}}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode == http.StatusOK && !json.Valid(b) {
		return resp.StatusCode, fmt.Errorf("the answer is not JSON")
	}
	return resp.StatusCode, nil
}

func statusOrError(code int, err error) string {
	if err != nil {
		return err.Error()
	}
	return "HTTP " + strconv.Itoa(code)
}
