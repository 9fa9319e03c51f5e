//go:build windows

package main

import "syscall"

// detachedProcess: not on this OS (the registry's socket and lock are
// Unix-only); the cockpit does not offer it.
func detachedProcess() *syscall.SysProcAttr { return nil }

// canServeInBackground: not on this OS.
const canServeInBackground = false
