//go:build linux

package confine

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary is also the stage: Start re-executes it with StageArg.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == StageArg {
		RunStage()
	}
	os.Exit(m.Run())
}

func needABI(t *testing.T) int {
	t.Helper()
	abi, err := ABI()
	if err != nil {
		t.Skipf("the kernel has no Landlock: %v", err)
	}
	if err := CheckABI(abi); err != nil {
		t.Skipf("%v", err)
	}
	return abi
}

// The same attacks against both carve-outs: the namespace's binds and
// masks, and narrowing. Each line of the script prints NAME:ok|fail.
func TestStageHoldsCarveOuts(t *testing.T) {
	abi := needABI(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	for _, namespace := range []bool{true, false} {
		t.Run(map[bool]string{true: "namespace", false: "narrowed"}[namespace], func(t *testing.T) {
			root := tree(t, "ws/src/a", "ws/.leasedeck/policy.json", "ws/.leasedeck/key", "ws/.git/config", "ws/secret.txt", "out/")
			ws := filepath.Join(root, "ws")
			spec := Spec{
				Rules:     append(systemRules(), Rule{Path: ws, Access: Read | Write}),
				Protect:   []string{filepath.Join(ws, ".leasedeck"), filepath.Join(ws, ".git", "config"), filepath.Join(ws, ".git", "hooks")},
				Hide:      []string{filepath.Join(ws, ".leasedeck", "key"), filepath.Join(ws, "secret.txt")},
				Namespace: namespace, Placeholders: true,
			}
			plan, err := Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			script := strings.Join([]string{
				`try() { n=$1; shift; if "$@" >/dev/null 2>&1; then echo "$n:ok"; else echo "$n:fail"; fi; }`,
				`try policy sh -c "echo x >> $WS/.leasedeck/policy.json"`,
				`try newfile sh -c "echo x > $WS/.leasedeck/new"`,
				`try key cat $WS/.leasedeck/key`,
				`try secret cat $WS/secret.txt`,
				`try gitconfig sh -c "echo x >> $WS/.git/config"`,
				`try hook sh -c "mkdir -p $WS/.git/hooks && echo x > $WS/.git/hooks/pre-commit"`,
				`try outside sh -c "echo x > $OUT/x"`,
				`try sibling sh -c "echo ok > $WS/src/b"`,
				`try readpolicy cat $WS/.leasedeck/policy.json`,
				`try tcp sh -c "exec 3<>/dev/tcp/127.0.0.1/$PORT"`,
			}, "\n")
			var out bytes.Buffer
			code := runStaged(t, Command{Path: "/bin/bash", Argv: []string{"bash", "-c", script}, Dir: ws, ABI: abi, Ports: []uint16{1},
				Env: []string{"PATH=/usr/bin:/bin", "WS=" + ws, "OUT=" + filepath.Join(root, "out"), "PORT=" + port}}, plan, namespace, &out)
			defer plan.Cleanup()
			if code != 0 {
				t.Fatalf("exit %d: %s", code, out.String())
			}
			want := map[string]string{"policy": "fail", "newfile": "fail", "key": "fail", "secret": "fail", "gitconfig": "fail",
				"hook": "fail", "outside": "fail", "sibling": "ok", "readpolicy": "ok", "tcp": "fail"}
			got := map[string]string{}
			for _, line := range strings.Fields(out.String()) {
				if n, v, ok := strings.Cut(line, ":"); ok {
					got[n] = v
				}
			}
			for n, v := range want {
				if got[n] != v {
					t.Errorf("%s: %q, want %s (output %q)", n, got[n], v, out.String())
				}
			}
			if b, _ := os.ReadFile(filepath.Join(ws, ".leasedeck", "policy.json")); string(b) != "x" {
				t.Errorf("policy.json changed: %q", b)
			}
		})
	}
}

// runStaged starts the stage in the given mode with stdout captured and
// answers the command's exit status.
func runStaged(t *testing.T, c Command, plan Plan, namespace bool, out *bytes.Buffer) int {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	ch, err := start(c, plan, namespace)
	os.Stdout = saved
	w.Close()
	if err != nil {
		r.Close()
		if namespace && namespaceRefused(err) {
			t.Skipf("the kernel refuses the namespaces here: %v", err)
		}
		t.Fatal(err)
	}
	if err := ch.Go(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { out.ReadFrom(r); close(done) }()
	select {
	case <-ch.Done():
	case <-time.After(30 * time.Second):
		ch.Kill()
		t.Fatal("the confined command did not end")
	}
	<-done
	r.Close()
	return ch.ExitCode()
}
