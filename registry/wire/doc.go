// Package wire is the registry's socket protocol: the one place that says
// what a message means. Each op has one params type and one result type;
// errors carry a Code; Client speaks it with one method per op.
//
// A message is one line of JSON: an object with the envelope members
// (`id`, `op`, `token`, `capability`) beside the op's params, flat. An
// answer is one line: {"id", "ok", "result"} or {"id", "ok": false,
// "error": {"code", "message"}}. Members a side does not know are
// ignored, so an older registry answers a newer client and the other way
// round.
//
// The package imports nothing of the registry: the bridge, the cockpit and
// the commands depend on the protocol, not on the service behind it.
package wire
