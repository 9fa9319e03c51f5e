package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/bridge/setup"
	"github.com/leasedeck/leasedeck/termtext"
)

// versionTimeout bounds one client's --version: doctor reports, it never
// waits on a client that hangs. The clients run in parallel; a node
// client's --version took 10 s on a busy two-core machine.
const versionTimeout = 15 * time.Second

// program is a client program found on PATH, or why none was.
type program struct {
	path    string   // "" when not found
	version string   // "" when unknown
	why     string   // why the version is unknown
	skipped []string // PATH entries not searched (agent-writable)
}

// findProgram looks for name on PATH as the user's shell would, except in
// directories an agent can plant a program in without the user noticing:
// a relative entry (".", "", "bin": it resolves against whatever
// directory doctor runs in) and any entry inside the workspace (an agent's
// node_modules/.bin, a venv's bin). A program whose symlinks resolve into
// the workspace is skipped too.
func findProgram(name, workspaceRoot string) program {
	var p program
	root := resolvedPath(workspaceRoot)
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			p.skipped = append(p.skipped, "relative PATH entry "+strings.TrimSpace(dir+" (empty: the current directory)"))
			continue
		}
		if root != "" && within(resolvedPath(dir), root) {
			p.skipped = append(p.skipped, "PATH entry "+dir+" (inside the workspace)")
			continue
		}
		cand := filepath.Join(dir, name)
		st, err := os.Stat(cand)
		if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
			continue
		}
		if root != "" && within(resolvedPath(cand), root) {
			p.skipped = append(p.skipped, cand+" (resolves inside the workspace)")
			continue
		}
		p.path = cand
		return p
	}
	return p
}

// runVersion runs `path --version` with a short timeout, in an empty
// temporary directory (so that no project configuration is picked up),
// with no stdin, and reads the first version number it prints.
func (p *program) runVersion() {
	if p.path == "" {
		return
	}
	tmp, err := os.MkdirTemp("", "leasedeck-doctor-")
	if err != nil {
		p.why = err.Error()
		return
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.path, "--version")
	cmd.Dir = tmp
	cmd.Stdin = nil
	var out limitedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		p.why = "'" + p.path + " --version' did not answer within " + versionTimeout.String()
	case err != nil && setup.VersionIn(out.String()) == "":
		p.why = "'" + p.path + " --version' failed: " + termtext.Clip(termtext.Flatten(err.Error()+" "+out.String()), 160)
	default:
		p.version = setup.VersionIn(out.String())
		if p.version == "" {
			p.why = "'" + p.path + " --version' printed no version number"
		}
	}
}

// limitedBuffer keeps the first 4 KiB written to it: a version line.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := 4096 - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func resolvedPath(p string) string {
	if p == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// within reports whether p is dir or beneath it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
