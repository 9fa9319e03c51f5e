package registry

import (
	"fmt"
	"os"
	"sync"
)

// clientsWithoutEnd are the clients that send no session end in a
// headless run: Qwen Code fires no SessionEnd under -p, and OpenCode has
// no session end event a plugin can rely on. Their sessions' leases end
// when the client process exits, where the registry can tell which
// process that is, reliably (Linux: clientwatch_linux.go); elsewhere they
// stay live until they expire, as before.
var clientsWithoutEnd = map[string]bool{"qwen-code": true, "qwen": true, "opencode": true}

// maxWatchedClients bounds the client processes watched at once (one
// goroutine each, blocked in the kernel); a session past it is not
// watched and its lease ends when it expires.
const maxWatchedClients = 512

// clientWatch are the sessions whose client process is watched.
type clientWatch struct {
	mu      sync.Mutex
	watched map[string]bool // session hash → watched
	// wakeR is polled beside each process: closing wakeW on Close wakes
	// every watcher, so none outlives the service.
	wakeR, wakeW *os.File
	closed       bool
	wg           sync.WaitGroup
}

// claim marks sh watched, and returns the descriptor a watcher polls to
// learn the service closes; false when sh is watched already, the cap is
// reached or the service is closing.
func (w *clientWatch) claim(sh string) (*os.File, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.watched[sh] || len(w.watched) >= maxWatchedClients {
		return nil, false
	}
	if w.wakeR == nil {
		r, wr, err := os.Pipe()
		if err != nil {
			return nil, false
		}
		w.wakeR, w.wakeW = r, wr
	}
	if w.watched == nil {
		w.watched = map[string]bool{}
	}
	w.watched[sh] = true
	w.wg.Add(1)
	return w.wakeR, true
}

func (w *clientWatch) release(sh string) {
	w.mu.Lock()
	delete(w.watched, sh)
	w.mu.Unlock()
	w.wg.Done()
}

// close wakes every watcher and waits for them.
func (w *clientWatch) close() {
	w.mu.Lock()
	w.closed = true
	if w.wakeW != nil {
		w.wakeW.Close()
	}
	w.mu.Unlock()
	w.wg.Wait()
	if w.wakeR != nil {
		w.wakeR.Close()
	}
}

// watchClient ends session's lease when the client process behind the
// hook that admitted it (peer, the hook's pid as the kernel gave it for
// the socket) exits, for a client that sends no session end. The client
// is the hook's nearest ancestor that is not a shell; it is held by a
// pidfd checked against the start time read with it, so a pid reused
// after the client exits can neither keep the lease live nor be taken for
// the client. When any of that cannot be known, nothing is watched.
func (s *Service) watchClient(client, session string, peer int) {
	if !clientsWithoutEnd[client] || peer <= 0 || session == "" {
		return
	}
	sh := s.SaltedHash("session", session)
	wake, ok := s.clients.claim(sh)
	if !ok {
		return
	}
	proc, err := openClientProcess(peer)
	if err != nil {
		s.clients.release(sh)
		return
	}
	go func() {
		defer s.clients.release(sh)
		defer proc.close()
		if !proc.waitExit(wake) {
			return // the service closes
		}
		// As the session end would have: the open turn finalized, the
		// lease and its live subtree completed; a session already ended
		// (or revoked) is left as it is.
		s.EndSession(session, fmt.Sprintf("client_exited: the %s process (pid %d) ended without a session end", client, proc.pid))
	}()
}
