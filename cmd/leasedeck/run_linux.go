//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/leasedeck/leasedeck/confine"
	"github.com/leasedeck/leasedeck/egress"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/wire"
	"github.com/leasedeck/leasedeck/workspace"
)

func checkABI(abi int) error { return confine.CheckABI(abi) }

// confinedStart is what startConfined needs.
type confinedStart struct {
	path      string
	argv, env []string
	dir       string
	abi       int
	proxy     *egress.Proxy
	profile   confine.Profile
	manifest  *registry.Manifest
}

// startConfined starts the tree under Landlock (and the namespaces where
// the kernel allows them), records the confinement with the registry and
// answers the banner for run's first line. The command does not run until
// the tree's Go.
func (rs *runSession) startConfined(cs confinedStart) (tree, string, error) {
	if err := confine.BecomeSubreaper(); err != nil {
		return nil, "", fmt.Errorf("cannot become the tree's subreaper: %w", err)
	}
	in, err := rs.inputs(cs)
	if err != nil {
		return nil, "", err
	}
	build := func(namespace bool) (confine.Plan, error) {
		in.Namespace = namespace
		spec, err := confine.SpecFor(in, cs.profile)
		if err != nil {
			return confine.Plan{}, err
		}
		return confine.Build(spec)
	}
	ch, err := confine.Start(confine.Command{Path: cs.path, Argv: cs.argv, Env: cs.env, Dir: cs.dir,
		Ports: []uint16{cs.proxy.Port()}, ABI: cs.abi}, build)
	if err != nil {
		return nil, "", err
	}
	network := "TCP connect only to the egress proxy " + cs.proxy.Addr()
	err = rs.recordConfinement(wire.Confinement{Confined: true, LandlockABI: cs.abi, MountNamespace: ch.Namespace,
		Narrowed: len(ch.Plan.Narrowed), Network: network})
	if err != nil {
		ch.Abandon()
		return nil, "", err
	}
	return ch, banner(ch, cs.abi, network), nil
}

// banner says which carve-out is in force.
func banner(ch *confine.Child, abi int, network string) string {
	ro, masked := 0, 0
	for _, b := range ch.Plan.Binds {
		if b.Mask {
			masked++
		} else {
			ro++
		}
	}
	var carve string
	switch {
	case ch.Namespace:
		carve = fmt.Sprintf("private mount namespace (%d read-only binds, %d masked paths)", ro, masked)
	default:
		carve = "no mount namespace (the kernel refused one)"
	}
	if n := len(ch.Plan.Narrowed); n > 0 {
		carve += fmt.Sprintf(", %d hierarchies narrowed to their other entries", n)
	}
	return fmt.Sprintf("confined by Landlock ABI %d; %s; %s", abi, carve, network)
}

// inputs gathers the facts of this run for the confinement: the lease's
// paths, the programs the tree runs, and leasedeck's own files.
func (rs *runSession) inputs(cs confinedStart) (confine.Inputs, error) {
	home := os.Getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return confine.Inputs{}, fmt.Errorf("no home directory: %w", err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return confine.Inputs{}, err
	}
	if r, err := filepath.EvalSymlinks(self); err == nil {
		self = r
	}
	execs := []string{self, cs.path}
	if hook, lean := hookExecutable(self, rs.w.Root, true); lean {
		// The lean hook binary install writes into the hooks (beside
		// this one, or on PATH): the tree's hooks run it.
		if r, err := filepath.EvalSymlinks(hook); err == nil {
			hook = r
		}
		execs = append(execs, hook)
	}
	if i := strings.Index(cs.path, "/node_modules/"); i >= 0 {
		// A client installed with npm reads (and may execute) its whole
		// package tree.
		execs = append(execs, cs.path[:i+len("/node_modules")])
	}
	w := rs.w
	// leasedeck's own directories: never writable. Its secrets: never
	// readable (the socket in the state directory stays reachable: the
	// hooks use it).
	protect := []string{w.Dir(), w.StateDir()}
	hide := []string{w.KeyPath(), w.TokenPath(), w.HandshakeKeyPath(), w.CheckpointKeyPath(), w.LegacyKeyPath(),
		w.CapabilityDir()} // other sessions' capabilities: the run's hooks use its ticket
	if d, err := workspace.ConfigDir(); err == nil {
		protect = append(protect, d)
	}
	if tp, err := w.LegacyTokenPath(); err == nil {
		hide = append(hide, tp)
	}
	settings, err := w.LoadSettings()
	if err != nil {
		return confine.Inputs{}, err
	}
	m := cs.manifest
	return confine.Inputs{Workspace: w.Root, Home: home, TempDir: rs.tmp, Executables: execs,
		Protect: protect, Hide: hide, WritePaths: m.Allow.WritePaths, ReadPaths: m.Allow.ReadPaths,
		DenyPaths: m.Deny.Paths, ProtectedWrites: protectedWrites(settings.Calls)}, nil
}

// startPlain starts an unconfined tree (--allow-unconfined). run is still
// its subreaper, so a revoked lease still stops all of it.
func startPlain(path string, argv, env []string, dir string) (tree, error) {
	confine.BecomeSubreaper()
	return newPlainTree(path, argv, env, dir)
}

func killTree(sig syscall.Signal) { confine.SignalDescendants(sig) }

// protectedWrites are the globs no lease may write, the policy's and the
// registry's own, for the kernel to hold as well as the gate.
func protectedWrites(rules registry.CallRules) []string {
	return append(append([]string(nil), rules.ProtectedWrites...), registry.ImplicitProtectedWrites...)
}
