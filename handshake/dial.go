package handshake

import (
	"context"
	"errors"
	"fmt"

	"time"

	"github.com/leasedeck/leasedeck/unixsock"
)

// Dial connects to the registry at t.Socket and verifies it (Verify),
// all within ctx. While nothing listens on the socket it keeps trying: as
// long as ctx allows when some process holds the registry lock (a
// registry is starting: replaying its journal), and for at most grace when
// none does or the OS cannot tell (a registry may be about to restart). A
// connection that ends before the registry's answer (one that stopped or
// crashed meanwhile) is tried again the same way. A squatter is final: no
// retry, and so is a refusal.
func (t Target) Dial(ctx context.Context, grace time.Duration) (unixsock.Conn, Answer, error) {
	start := time.Now()
	backoff := 10 * time.Millisecond
	var last error
	for {
		dial := unixsock.Dial
		if t.Blocking {
			dial = unixsock.DialBlocking
		}
		conn, err := dial(ctx, t.Socket)
		if err == nil {
			verified, a, verr := t.Verify(ctx, conn)
			if verr == nil {
				return verified, a, nil
			}
			conn.Close()
			// A squatter, and a refusal (the registry past its
			// connection cap, which more connections would not help),
			// are final.
			var squat *SquatterError
			var refused *RefusedError
			if errors.As(verr, &squat) || errors.As(verr, &refused) || ctx.Err() != nil {
				return nil, Answer{}, verr
			}
			// The registry went away between the connect and its answer
			// (it stopped or crashed): as if nothing listened.
			err = verr
		}
		last = err
		if ctx.Err() != nil {
			break
		}
		if holders, herr := LockHolders(t.Lock); (herr != nil || len(holders) == 0) && time.Since(start) >= grace {
			break
		}
		wait := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			wait.Stop()
			return nil, Answer{}, fmt.Errorf("%w on %s within the hook's deadline: %w", ErrNoRegistry, t.Socket, last)
		case <-wait.C:
		}
		if backoff < 200*time.Millisecond {
			backoff *= 2
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, Answer{}, fmt.Errorf("%w on %s within the hook's deadline: %w", ErrNoRegistry, t.Socket, last)
	}
	return nil, Answer{}, fmt.Errorf("%w on %s: %w", ErrNoRegistry, t.Socket, last)
}
