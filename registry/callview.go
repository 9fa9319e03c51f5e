package registry

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/redact"
	"github.com/leasedeck/leasedeck/registry/resources"
)

// An approval request carries what the person deciding it must see: the
// whole call, redacted, with its line breaks (a long comment or a second
// line must not hide what runs), and the resources the gate derived from
// it. Both come from the call itself, never from the caller's own
// description, and are recorded as the request's top-level "call" member
// (the audit schema keeps `details` to short flat scalars).

const (
	callTextMax  = 8000 // runes of call text recorded
	callListMax  = 64   // entries per resource list
	writePreview = 40   // lines of a write's new text shown
)

// callView derives the view of a held call.
func callView(call ToolCall, use resources.Use) approvals.CallView {
	v := approvals.CallView{Text: callText(call)}
	if len(dequotedCredentials(use)) > 0 {
		// The written line holds the credential in pieces no detector
		// masks: the person is shown the words dequoted, masked.
		v.Text = dequotedShown(call)
	}
	if d := decodedCredentials(use); len(d.found) > 0 {
		v.Text = d.shown(call) // the words are the credential, encoded
	}
	v.Programs = capList(use.Executables)
	for _, p := range use.Reads {
		v.Reads = append(v.Reads, displayPath(p))
	}
	for _, p := range use.Writes {
		v.Writes = append(v.Writes, displayPath(p))
	}
	v.Reads, v.Writes = capList(v.Reads), capList(v.Writes)
	v.Hosts = capList(use.Hosts)
	if c, ok := call.Input["content"].(string); ok && call.Tool == "Write" {
		v.Bytes = int64(len(c))
	}
	return v
}

// callText is the call as a person reads it before deciding: the full
// command, the full URL, the path and the start of what is written; for
// any other tool its input. Redacted, then cut at callTextMax.
func callText(call ToolCall) string {
	in := call.Input
	s := func(k string) string { v, _ := in[k].(string); return v }
	var b strings.Builder
	switch call.Tool {
	case resources.ToolBash, resources.ToolPowerShell:
		b.WriteString(s("command"))
		for _, k := range []string{"cwd", "dir_path", "workdir"} {
			if d := s(k); d != "" {
				fmt.Fprintf(&b, "\n(in %s)", d)
			}
		}
	case "WebFetch":
		b.WriteString(s("url"))
		if us, ok := in["urls"].([]any); ok {
			for _, u := range us {
				fmt.Fprintf(&b, "\n%v", u)
			}
		}
	case "Write":
		c := s("content")
		fmt.Fprintf(&b, "%s (%s)\n", s("file_path"), redact.HumanBytes(len(c)))
		b.WriteString(firstLines(c, writePreview))
	case "Edit":
		fmt.Fprintf(&b, "%s\n- %s\n+ %s", s("file_path"), firstLines(s("old_string"), writePreview/2), firstLines(s("new_string"), writePreview/2))
	default:
		j, err := json.MarshalIndent(in, "", "  ")
		if err != nil {
			return call.Tool
		}
		b.WriteString(call.Tool + " " + string(j))
	}
	text, _ := redact.Redact(b.String())
	if r := []rune(text); len(r) > callTextMax {
		text = string(r[:callTextMax]) + fmt.Sprintf("\n… %d more characters not recorded", len(r)-callTextMax)
	}
	return text
}

func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "") + fmt.Sprintf("… %d more line(s)", len(lines)-n)
}

func capList(s []string) []string {
	if len(s) > callListMax {
		return append(append([]string(nil), s[:callListMax]...), fmt.Sprintf("… %d more", len(s)-callListMax))
	}
	return s
}

// callRecord is the view as the request's "call" member.
func callRecord(v approvals.CallView) map[string]any {
	rec := map[string]any{"text": v.Text}
	put := func(k string, l []string) {
		if len(l) > 0 {
			a := make([]any, len(l))
			for i, x := range l {
				a[i] = x
			}
			rec[k] = a
		}
	}
	put("programs", v.Programs)
	put("reads", v.Reads)
	put("writes", v.Writes)
	put("hosts", v.Hosts)
	if v.Bytes > 0 {
		rec["bytes"] = v.Bytes
	}
	return rec
}

// callFromRecord reads a request's "call" member back; an older record
// without one gives the zero view.
func callFromRecord(rec map[string]any) approvals.CallView {
	c, _ := rec["call"].(map[string]any)
	if c == nil {
		return approvals.CallView{}
	}
	text, _ := c["text"].(string)
	v := approvals.CallView{Text: text, Programs: stringList(c["programs"]), Reads: stringList(c["reads"]),
		Writes: stringList(c["writes"]), Hosts: stringList(c["hosts"])}
	switch n := c["bytes"].(type) {
	case json.Number:
		v.Bytes, _ = n.Int64()
	case float64:
		v.Bytes = int64(n)
	case int64:
		v.Bytes = n
	}
	return v
}
