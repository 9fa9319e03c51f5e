// Package record is the typed form of the two journal files' lines: a
// lease record (lease-record.schema.json) and an audit event
// (audit-event.schema.json). Reading a line keeps every member this
// version does not know, so a newer minor writer's additions survive a
// read and a rewrite (SPEC §10, additive rule). Writing a record clips each
// free-text member to the cap the embedded schema itself states, counting
// code points as the schema does, so an over-long reason or summary is cut
// short and never turns a decision into a schema failure.
//
// What a line means for the registry's state is decided in one place, the
// registry's fold; this package only says what a line holds.
package record
