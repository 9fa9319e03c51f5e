// Package contract carries the vendored Agent Lease contract (schema set
// 1.2, Apache-2.0): its JSON Schemas, specification and conformance corpus.
// Embedding it lets the binary validate and run the corpus from anywhere,
// without the source tree beside it. See NOTICE at the repository root.
package contract

import (
	"embed"
	"io/fs"
)

//go:embed LICENSE SPEC-agent-lease-manifest.md schemas fixtures conformance all:_inferred
var files embed.FS

// FS is the vendored contract tree as published, with `_inferred/` beside
// it holding the reconstructed `.expect.json` files (see _inferred/README.md).
func FS() fs.FS { return files }

// Schema returns the named schema file, e.g. "agent-lease.schema.json".
func Schema(name string) ([]byte, error) {
	return files.ReadFile("schemas/" + name)
}
