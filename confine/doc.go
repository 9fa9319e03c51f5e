// Package confine turns a session lease into a kernel confinement for a
// process tree: which hierarchies the tree may read, write and execute
// (Landlock), which paths inside those hierarchies a private mount
// namespace makes read-only or hides, and which TCP port it may connect to
// (the egress proxy's). Build computes the plan on every OS; applying it
// (landlock_linux.go, stage_linux.go) exists only on Linux, and elsewhere
// every entry point answers ErrUnsupported.
//
// Landlock only grants rights; it cannot take a right back below a granted
// directory. A path that must stay read-only (the policy, the client's hook
// configuration, .git/hooks) or unreadable (the key, ~/.ssh, a deny.paths
// entry) inside a granted hierarchy is therefore carved out in one of two
// ways: with a read-only bind mount (or a mode-000 mask) in a private mount
// namespace, where the kernel allows user namespaces; or by narrowing the
// grant to the hierarchy's other entries, which also stops new entries from
// being created directly in the narrowed directories. A path that does not
// exist yet cannot carry a mount, so it is always carved out by narrowing.
package confine
