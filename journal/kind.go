package journal

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/leasedeck/leasedeck/schemas"
)

// Kind names one of the two journal files.
type Kind int

const (
	// Leases is leases.jsonl: one contract lease-record line per decision.
	Leases Kind = iota
	// Audit is audit.jsonl: one contract audit-event line per gate decision,
	// approval, lifecycle operation and budget spend.
	Audit
)

// Kinds lists both files in the order they are opened, verified and
// replayed: the lease journal first, because the audit journal refers to it.
var Kinds = []Kind{Leases, Audit}

// File names inside a journal directory.
const (
	LeasesFile = "leases.jsonl"
	AuditFile  = "audit.jsonl"
)

// FileName is the file's base name.
func (k Kind) FileName() string {
	switch k {
	case Leases:
		return LeasesFile
	case Audit:
		return AuditFile
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

func (k Kind) String() string { return k.FileName() }

// Shape is the contract schema every line of the file must satisfy.
func (k Kind) Shape() schemas.Shape {
	if k == Audit {
		return schemas.AuditEvent
	}
	return schemas.LeaseRecord
}

func (k Kind) valid() bool { return k == Leases || k == Audit }

// KindOf tells which journal a path holds from its base name. Rotated and
// moved-aside copies (leases.jsonl.1, audit.jsonl.torn-…) count as their
// journal, so they can be read and checked with the same rules.
func KindOf(path string) (Kind, bool) {
	base := filepath.Base(path)
	for _, k := range Kinds {
		name := k.FileName()
		if base == name || strings.HasPrefix(base, name+".") {
			return k, true
		}
	}
	return 0, false
}
