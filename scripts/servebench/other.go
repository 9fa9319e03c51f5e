//go:build !linux

// Command servebench measures `leasedeck serve`'s start from /proc, which
// only Linux has.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "servebench: not on this OS (it reads the process's figures from /proc)")
	os.Exit(1)
}
