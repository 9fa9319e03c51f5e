//go:build !windows

package main

import "syscall"

// detachedProcess puts the background registry in a session of its own.
func detachedProcess() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// canServeInBackground: a detached registry can be started here.
const canServeInBackground = true
