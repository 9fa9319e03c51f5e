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
// of the batch, the files are cut back to where they were, and the Writer
// refuses every later append until it is reopened: after an I/O error
// nobody can say what is on disk, so the only honest answer is to stop.
//
// On Open a torn last line (no newline, or not JSON) — what a crash in the
// middle of a write leaves — is moved to <file>.torn-<UTC time>, cut off,
// and the cut recorded as a leasedeck.journal.recovered audit line. Any
// other damage (a bad mac, a broken chain, a gap in seq, a schema-invalid
// line) is a break: it is never cut, the Writer reports it and refuses to
// append to that file, and Verify lists it.
//
// Reading (ReadFrom, Scan), following (Tail) and checking (Verify) need no
// lock and may run while a Writer appends.
package journal
