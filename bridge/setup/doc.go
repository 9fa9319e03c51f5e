// Package setup writes leasedeck's hooks into a client's configuration and
// reads them back: install (settings files, Claude Code's HTTP hooks, the
// plugin files of OpenCode and pi), uninstall (giving back what install
// changed), inspect (which handlers are leasedeck's, for doctor and
// uninstall), the hook command line (written, and parsed back with the
// shell parser: only a line install could have written is read as one),
// and what doctor knows of each client (ClientFacts). The hook path does
// not import it: the bridge's adapters parse and render, this package only
// configures them.
package setup
