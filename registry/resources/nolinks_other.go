//go:build !linux

package resources

// dirWithoutLinks is answered on Linux only (openat2); elsewhere the
// component walk decides.
func dirWithoutLinks(string) bool { return false }

func mayOpenWithoutLinks() bool { return false }
