//go:build !unix

package resources

// userWritable cannot tell on this OS, so every path counts as writable:
// a program named by a path is never taken for its basename.
func userWritable(string) bool { return true }
