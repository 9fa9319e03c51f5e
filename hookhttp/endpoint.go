package hookhttp

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/leasedeck/leasedeck/bridge/setup"
)

// FileName is the endpoint's record in the workspace's state directory,
// which no agent tool call may read or write.
const FileName = "hook-http.json"

// Path is the URL path Claude Code's hooks are POSTed to.
const Path = setup.ClaudeHTTPPath

// Endpoint is where the registry serves HTTP hooks and the bearer token a
// request must carry.
type Endpoint struct {
	Port  int    `json:"port"`
	Token string `json:"token"`
}

// Addr is the loopback address to listen on and to name in Host.
func (e Endpoint) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(e.Port)) }

// Base is the hook URL without its query (install adds each hook's
// timeout).
func (e Endpoint) Base() string { return "http://" + e.Addr() + Path }

// Load reads the endpoint recorded in stateDir.
func Load(stateDir string) (Endpoint, error) {
	b, err := os.ReadFile(filepath.Join(stateDir, FileName))
	if err != nil {
		return Endpoint{}, err
	}
	var e Endpoint
	if err := json.Unmarshal(b, &e); err != nil {
		return Endpoint{}, fmt.Errorf("%s: %v", FileName, err)
	}
	if e.Port <= 0 || e.Port > 65535 {
		return Endpoint{}, fmt.Errorf("%s: port %d is not a TCP port", FileName, e.Port)
	}
	if len(e.Token) < 32 {
		return Endpoint{}, fmt.Errorf("%s: the token is too short", FileName)
	}
	return e, nil
}

// Ensure returns the endpoint recorded in stateDir (a private directory
// that exists), recording a new one first if there is none: a free
// loopback port, chosen now, and a fresh 32-byte token. Install and the
// registry both call it; whichever comes first records it, and the record
// is never replaced (a settings file naming the port stays right).
func Ensure(stateDir string) (Endpoint, error) {
	if e, err := Load(stateDir); err == nil || !errors.Is(err, os.ErrNotExist) {
		return e, err
	}
	port, err := freePort()
	if err != nil {
		return Endpoint{}, fmt.Errorf("no free loopback port for HTTP hooks: %v", err)
	}
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		return Endpoint{}, err
	}
	b, _ := json.Marshal(Endpoint{Port: port, Token: hex.EncodeToString(tok)})
	final := filepath.Join(stateDir, FileName)
	tmp, err := os.CreateTemp(stateDir, FileName+".*")
	if err != nil {
		return Endpoint{}, err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(append(b, '\n'))
	if err := errors.Join(werr, tmp.Sync(), tmp.Close()); err != nil {
		return Endpoint{}, err
	}
	// A hard link never replaces: if another process recorded one in the
	// meantime, that one stands.
	if err := os.Link(tmp.Name(), final); err != nil && !errors.Is(err, os.ErrExist) {
		return Endpoint{}, err
	}
	return Load(stateDir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
