package tui

import (
	"context"
	"net"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// SocketActor performs the cockpit's actions over the registry socket
// with the operator token — in attached mode, and in embedded mode too,
// where the socket is served by this same process, so that there is one
// path for a decision whoever runs the registry.
type SocketActor struct {
	Socket  string
	Token   string
	Timeout time.Duration // per call; default 10 s
}

// dial opens a connection per action: actions come at human speed, and a
// fresh connection never trips over one a dead registry left behind.
func (a SocketActor) dial() (*wire.Client, context.Context, func(), error) {
	c, err := wire.Dial(a.Socket, 2*time.Second)
	if err != nil {
		return nil, nil, nil, err
	}
	c.SetToken(a.Token)
	to := a.Timeout
	if to <= 0 {
		to = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), to)
	return c, ctx, func() { cancel(); c.Close() }, nil
}

// Decide approves or denies a pending request.
func (a SocketActor) Decide(approvalID, outcome, scope, reason string) error {
	c, ctx, done, err := a.dial()
	if err != nil {
		return err
	}
	defer done()
	_, err = c.Decide(ctx, wire.DecideParams{ApprovalID: approvalID, Outcome: outcome, Scope: scope, Reason: reason, By: "cockpit"})
	return err
}

// Revoke revokes a lease and its live subtree.
func (a SocketActor) Revoke(leaseID, reason string) ([]string, error) {
	c, ctx, done, err := a.dial()
	if err != nil {
		return nil, err
	}
	defer done()
	res, err := c.Revoke(ctx, wire.RevokeParams{LeaseID: leaseID, Reason: reason})
	return res.Revoked, err
}

// watchRegistry reports the registry behind socket coming and going. It
// does not poll a registry that is up: it holds one idle connection open
// and learns of the registry's end when the kernel closes it. While the
// registry is down it tries again every retry. It sends only changes.
func watchRegistry(ctx context.Context, socket string, retry time.Duration, send func(tea.Msg)) {
	if retry <= 0 {
		retry = 3 * time.Second
	}
	known, wasUp := false, false
	report := func(up bool, pid int, why string) {
		if known && up == wasUp {
			return
		}
		known, wasUp = true, up
		send(registryMsg{Up: up, PID: pid, Err: why})
	}
	for ctx.Err() == nil {
		pid, conn, err := dialWatch(socket)
		if err != nil {
			report(false, 0, err.Error())
		} else {
			report(true, pid, "")
			stop := context.AfterFunc(ctx, func() { conn.Close() })
			buf := make([]byte, 512)
			for {
				if _, err := conn.Read(buf); err != nil {
					break
				}
			}
			stop()
			conn.Close()
			if ctx.Err() != nil {
				return
			}
			report(false, 0, "the registry closed its socket")
		}
		t := time.NewTimer(retry)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// dialWatch asks the registry for its pid, then opens the idle
// connection the watch holds.
func dialWatch(socket string) (int, net.Conn, error) {
	c, err := wire.Dial(socket, 2*time.Second)
	if err != nil {
		return 0, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	st, err := c.Status(ctx)
	cancel()
	c.Close()
	if err != nil {
		return 0, nil, err
	}
	conn, err := net.DialTimeout("unix", socket, 2*time.Second)
	if err != nil {
		return 0, nil, err
	}
	return st.PID, conn, nil
}
