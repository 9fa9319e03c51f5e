//go:build !linux

package main

import (
	"syscall"

	"github.com/leasedeck/leasedeck/confine"
	"github.com/leasedeck/leasedeck/egress"
	"github.com/leasedeck/leasedeck/registry"
)

func checkABI(int) error { return confine.ErrUnsupported }

type confinedStart struct {
	path      string
	argv, env []string
	dir       string
	abi       int
	proxy     *egress.Proxy
	profile   confine.Profile
	manifest  *registry.Manifest
}

// startConfined: confined mode is not available on this OS (run refuses
// before it gets here unless --allow-unconfined, which starts plainly).
func (rs *runSession) startConfined(confinedStart) (tree, string, error) {
	return nil, "", confine.ErrUnsupported
}

func startPlain(path string, argv, env []string, dir string) (tree, error) {
	return newPlainTree(path, argv, env, dir)
}

// killTree: without a subreaper, the plain tree's Stop signals the
// command itself only.
func killTree(syscall.Signal) {}
