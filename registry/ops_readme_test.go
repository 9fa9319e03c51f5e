package registry

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/leasedeck/leasedeck/registry/wire"
)

const (
	socketOpsBegin = "<!-- socket-ops:begin (generated from the registry's op table; LEASEDECK_UPDATE_README=1 go test ./registry -run TestReadmeSocketAPI) -->"
	socketOpsEnd   = "<!-- socket-ops:end -->"
)

// socketAPIMarkdown renders the op table and the error codes as README's
// Socket API section shows them.
func socketAPIMarkdown() string {
	var b strings.Builder
	b.WriteString("| op | who may call it | what it does |\n|---|---|---|\n")
	for _, o := range opTable {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", o.name, accessText(o.access), o.doc)
	}
	b.WriteString("\n| error code | meaning |\n|---|---|\n")
	for _, c := range wire.Codes {
		fmt.Fprintf(&b, "| `%s` | %s |\n", c.Code, c.Doc)
	}
	return b.String()
}

func accessText(a wire.Access) string {
	switch a {
	case wire.Operator:
		return "operator (token)"
	case wire.Session:
		return "session"
	}
	return "anyone (read-only)"
}

// TestReadmeSocketAPI fails when README's Socket API table differs from
// the op table: a new op, a changed access class, a new error code.
func TestReadmeSocketAPI(t *testing.T) {
	const path = "../README.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i, j := strings.Index(text, socketOpsBegin), strings.Index(text, socketOpsEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q … %q section", socketOpsBegin, socketOpsEnd)
	}
	want := "\n" + socketAPIMarkdown()
	got := text[i+len(socketOpsBegin) : j]
	if got == want {
		return
	}
	if os.Getenv("LEASEDECK_UPDATE_README") == "1" {
		out := text[:i+len(socketOpsBegin)] + want + text[j:]
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's Socket API table differs from the op table; regenerate it with LEASEDECK_UPDATE_README=1. Want:\n%s", want)
}

// TestOpTableMatchesClient: every op in the table has a typed client
// method, and every op is in the table once.
func TestOpTableMatchesClient(t *testing.T) {
	seen := map[wire.Op]bool{}
	for _, o := range opTable {
		if seen[o.name] {
			t.Errorf("op %s twice in the table", o.name)
		}
		seen[o.name] = true
		if o.doc == "" || o.access == "" {
			t.Errorf("op %s: no doc or no access class", o.name)
		}
	}
	for _, name := range clientMethodOps() {
		if !seen[name] {
			t.Errorf("wire.Client has a method for %s, which the table does not serve", name)
		}
		delete(seen, name)
	}
	for name := range seen {
		t.Errorf("op %s has no wire.Client method", name)
	}
}

// clientMethodOps names the ops wire.Client has a method for: every
// method that takes a context first, EndSession → end_session.
func clientMethodOps() []wire.Op {
	ctxType := reflect.TypeFor[context.Context]()
	ct := reflect.TypeFor[*wire.Client]()
	var out []wire.Op
	for i := range ct.NumMethod() {
		m := ct.Method(i)
		if m.Type.NumIn() < 2 || m.Type.In(1) != ctxType {
			continue
		}
		var b strings.Builder
		for k, r := range m.Name {
			if unicode.IsUpper(r) && k > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		}
		out = append(out, wire.Op(b.String()))
	}
	return out
}
