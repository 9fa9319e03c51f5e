//go:build !unix

package resources

import "os"

// openFileNoBlock opens p for reading (a Windows FIFO is not a file
// name git would find).
func openFileNoBlock(p string) (*os.File, error) { return os.Open(p) }
