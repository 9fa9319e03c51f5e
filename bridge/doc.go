// Package bridge is the client side of leasedeck: the lifecycle contract
// (schemas/lifecycle.schema.json) and the adapters that translate each
// agent client's native hook payloads onto it and render the registry's
// answer back in the client's own format and exit-code convention.
//
// This half of the package is pure: it parses, maps, redacts, summarises
// and renders, but it never opens a socket or touches the registry.
// Writing and reading back the clients' hook settings is package
// bridge/setup's, so the hook path (package hookrun, the lean
// leasedeck-hook binary) links neither it nor its shell parser. A hook
// invocation is wired as
//
//	a, _ := bridge.AdapterFor("claude-code")
//	ev, err := a.Parse(stdin)
//	if err != nil { out := bridge.Render(a, ev, bridge.FailVerdict(mode, ev, err.Error())) … }
//	if ev.Op == bridge.OpNone { out := bridge.Render(a, ev, bridge.Verdict{}) … } // observed only
//	req, _ := ev.Request(admissionID)            // to the registry ("" = route by session)
//	resp := …registry…                           // or bridge.Unreachable(mode, ev)
//	out := bridge.Render(a, ev, bridge.VerdictFor(ev, resp)) // stdout, stderr, exit code
//
// Nothing here keeps a raw tool result: adapters reduce results to a
// SHA-256, a size and a structural one-line summary while parsing.
package bridge
