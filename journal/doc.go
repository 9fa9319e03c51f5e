// Package journal keeps leasedeck's two append-only evidence files,
// leases.jsonl (contract lease-record lines) and audit.jsonl (contract
// audit-event lines), under one journal directory.
//
// # Line format
//
// A line is the record's members in canonical (RFC 8785) order, followed by
// three members the open schemas allow, and a newline:
//
//	{<record members>,"seq":N,"prev":"<64 hex>","mac":"<64 hex>"}\n
//
// seq counts 1, 2, 3 … per file. prev is the SHA-256 of the previous line's
// bytes without its newline (64 zeros on a file's first line), so a line
// cannot be removed, inserted or moved without breaking the next one. mac is
// HMAC-SHA256 under the deployment key over the line's bytes up to the
// ,"mac": that precedes it, so a line cannot be edited or forged without the
// key. Both are checked on the raw bytes: checking a million lines costs
// hashing, never re-serialising, and a reader of a newer minor version's
// lines (extra members) checks them exactly as written.
//
// # Durability
//
// A Writer is the only writer of a directory (a file lock, whose holder's
// pid is written into the lock file). Append answers only once its line is
// on disk: concurrent callers are batched into one write and one fsync per
// file (group commit). A failed write or fsync is returned to every caller
// of the batch and the files are cut back to where they were. The Writer
// then refuses every append while the error lasts (fail closed), retries
// with backoff, checks that each file's tail is exactly what it
// acknowledged, probes the disk, and resumes by itself, recording a
// leasedeck.journal.resumed line (Status says which state it is in).
//
// On Open a torn last line (no newline, or not JSON) — what a crash in the
// middle of a write leaves — is moved to <file>.torn-<UTC time>, cut off,
// and the cut recorded as a leasedeck.journal.recovered audit line. Any
// other damage (a bad mac, a broken chain, a gap in seq, a schema-invalid
// line) is a break: it is never cut, the Writer reports it and refuses to
// append to that file, and Verify lists it.
//
// # Anchors outside the directory
//
// Whoever can write the journal files can also cut them at a line
// boundary, replace them, or rewrite them with a stolen HMAC key and
// re-chain them. Two anchors the journal directory does not hold answer
// that (Options.HeadPath, Options.SigningKeyPath; the registry keeps both
// in the per-user state directory):
//
//   - The kept head (Head): each file's last acknowledged seq, line hash,
//     size and identity, fdatasync'd before every answer. Open compares
//     the files with it: a file that does not reach it was cut, replaced
//     or rewritten (a break that says which); lines past it were written
//     but never acknowledged, and are moved to <file>.unacked-<UTC time>,
//     recorded as leasedeck.journal.unacknowledged and never replayed;
//     damage to bytes it covers is damage, never a torn write. Before each
//     batch the writer checks that the paths still name the files it
//     holds, ending where it left them; if not (removed, replaced, cut,
//     grown by someone else) it stops for good with a *FileChangedError.
//   - Signed checkpoints: every CheckpointEvery lines and at Close, a
//     leasedeck.journal.checkpoint audit line signs with Ed25519 both
//     files' heads, so that Verify with only the public key proves every
//     line up to the last checkpoint, and a re-chained rewrite no longer
//     matches them.
//
// Reading (ReadFrom, Scan), following (Tail) and checking (Verify) need no
// lock and may run while a Writer appends.
package journal
