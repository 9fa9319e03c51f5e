package main

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// plainTree is an unconfined command (--allow-unconfined): the lease is
// held by the hooks only, but a revoked lease still stops the tree.
type plainTree struct {
	cmd  *exec.Cmd
	done chan struct{}
	code int
}

// newPlainTree prepares the command; it starts on Go, so that run's first
// line comes before the command's output.
func newPlainTree(path string, argv, env []string, dir string) (*plainTree, error) {
	cmd := exec.Command(path)
	cmd.Args, cmd.Env, cmd.Dir = argv, env, dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	return &plainTree{cmd: cmd, done: make(chan struct{})}, nil
}

func (p *plainTree) Go() error {
	if err := p.cmd.Start(); err != nil {
		close(p.done)
		p.code = exitNoCommand
		return err
	}
	go func() {
		err := p.cmd.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee):
			p.code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				p.code = 128 + int(ws.Signal())
			}
		default:
			p.code = 1
		}
		close(p.done)
	}()
	return nil
}

func (p *plainTree) Done() <-chan struct{} { return p.done }
func (p *plainTree) ExitCode() int         { return p.code }

func (p *plainTree) Stop(grace time.Duration) {
	if p.cmd.Process != nil {
		p.cmd.Process.Signal(syscall.SIGTERM)
	}
	killTree(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
	}
	p.Reap()
}

// Reap kills what is left of the tree.
func (p *plainTree) Reap() {
	if p.cmd.Process != nil {
		p.cmd.Process.Kill()
	}
	killTree(syscall.SIGKILL)
	<-p.done
}
