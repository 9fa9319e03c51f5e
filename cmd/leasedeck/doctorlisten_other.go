//go:build !linux

package main

import "errors"

// listenerCheckable: only Linux names the process behind a socket here.
const listenerCheckable = false

func loopbackListener(int) (int, error) {
	return 0, errors.New("not on this OS: the process listening on a port is named on Linux only")
}
