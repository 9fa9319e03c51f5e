// Package hookhttp serves Claude Code's HTTP hooks from the registry: the
// client POSTs each hook payload to a loopback port instead of starting a
// `leasedeck hook` process, and gets the same answer the command hook
// would give, decided the same way.
//
// The endpoint grants nothing the command hook does not. Each request is
// one hook payload for the workspace this registry governs; it is parsed by
// the same adapter, carried to the registry over an in-process connection
// served like a socket connection (the same op table and access checks, no
// operator token, the session capability the command hook would present),
// and answered in the client's decision format. Nothing in a request can
// approve a held call, change the mode or reach another workspace: there is
// no op for it here, and the registry refuses session ops without the
// session's capability.
//
// Who may use it: only a request carrying the endpoint's bearer token,
// which `leasedeck install` writes into the client's hook configuration
// (a file only this user may read) and the registry keeps in its state
// directory, with the port. The port is bound on 127.0.0.1 only, and a
// request whose Host is not that address is refused, so neither another
// user nor a web page in a browser can use it.
package hookhttp
