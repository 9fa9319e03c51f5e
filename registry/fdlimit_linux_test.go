//go:build linux

package registry

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const fdHelperEnv = "LEASEDECK_TEST_FD_HELPER_SOCKET"

// TestFDLimitedRegistry is the registry run by TestAcceptSurvivesFDExhaustion
// in a process of its own, with a file-descriptor limit a few above what
// it already holds. Run directly, it does nothing.
func TestFDLimitedRegistry(t *testing.T) {
	sock := os.Getenv(fdHelperEnv)
	if sock == "" {
		t.Skip("run by TestAcceptSurvivesFDExhaustion")
	}
	f := newFixture(t)
	l, err := Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	open, _ := os.ReadDir("/proc/self/fd")
	limit := uint64(len(open) + 8)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		t.Fatal(err)
	}
	fmt.Println("ready")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // the parent closes stdin to stop the registry
		os.Stdin.Read(make([]byte, 1))
		cancel()
	}()
	if err := NewHandler(f.svc, testToken).Serve(ctx, l); err != nil {
		t.Fatalf("serve ended: %v", err)
	}
}

// A registry out of file descriptors keeps its accept loop: the client
// that could not be accepted is answered once descriptors are free, and
// so is a new one.
func TestAcceptSurvivesFDExhaustion(t *testing.T) {
	if os.Getenv(fdHelperEnv) != "" {
		t.Skip("inside the helper")
	}
	sock := filepath.Join(t.TempDir(), "r.sock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestFDLimitedRegistry$", "-test.count=1")
	cmd.Env = append(os.Environ(), fdHelperEnv+"="+sock)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	defer func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	}()
	out := bufio.NewReader(stdout)
	if line, err := out.ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("helper: %q %v %s", line, err, stderr.String())
	}
	go func() { _, _ = out.WriteTo(discard{}); exited <- cmd.Wait() }()

	status := func(c net.Conn, wait time.Duration) error {
		c.SetDeadline(time.Now().Add(wait))
		if _, err := c.Write([]byte(`{"op":"status"}` + "\n")); err != nil {
			return err
		}
		var a rawAnswer
		if err := json.NewDecoder(c).Decode(&a); err != nil {
			return err
		}
		if !a.OK {
			return fmt.Errorf("not ok: %+v", a.Error)
		}
		return nil
	}
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	var stuck net.Conn
	for range 64 {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		if err := status(c, 300*time.Millisecond); err != nil {
			stuck = c
			break
		}
		held = append(held, c)
	}
	if stuck == nil {
		t.Fatal("64 connections were all answered: the descriptor limit did not bite")
	}
	defer stuck.Close()
	select {
	case err := <-exited:
		t.Fatalf("the registry ended when out of descriptors: %v\n%s", err, stderr.String())
	default:
	}
	for _, c := range held {
		c.Close()
	}
	held = nil
	// The waiting client's message is already in the socket: its answer
	// comes once the accept loop retries.
	var a rawAnswer
	stuck.SetDeadline(time.Now().Add(10 * time.Second))
	if err := json.NewDecoder(stuck).Decode(&a); err != nil || !a.OK {
		t.Fatalf("the client held in the backlog: %+v %v\n%s", a, err, stderr.String())
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := status(c, 10*time.Second); err != nil {
		t.Fatalf("a new client: %v", err)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
