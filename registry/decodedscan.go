package registry

import (
	"strings"

	"github.com/leasedeck/leasedeck/redact"
	"github.com/leasedeck/leasedeck/registry/resources"
)

// decodedFinds are the credentials found in what a shell line decodes to
// (see resources.Decoded): the findings, each decoded text that holds one
// with the credential masked, and the words those texts were made from.
type decodedFinds struct {
	found  []redact.Finding
	masked []string
	from   []string
}

// maxDecodedShown bounds the decoded text a human is shown of one line.
const maxDecodedShown = 300

// decodedCredentials scans what use's shell line decodes to.
func decodedCredentials(use resources.Use) decodedFinds {
	var d decodedFinds
	for _, dec := range use.Decoded {
		var hit bool
		for _, fd := range redact.FindingsInMember("command", dec.Text) {
			if fd.Credential() {
				d.found = append(d.found, fd)
				hit = true
			}
		}
		if !hit {
			continue
		}
		m, _ := redact.Redact(dec.Text)
		if m = redact.OneLine(strings.TrimSpace(m), maxDecodedShown); !contains(d.masked, m) {
			d.masked = append(d.masked, m)
		}
		for _, w := range dec.From {
			if !contains(d.from, w) {
				d.from = append(d.from, w)
			}
		}
	}
	return d
}

// shown is a shell call's command as a person (and the journal) is shown
// it when what it decodes to holds a credential: the decoded text with
// the credential masked first, then the line's words with those it was
// decoded from left out (they are the credential, encoded), and whatever
// else a detector finds masked.
func (d decodedFinds) shown(call ToolCall) string {
	cmd, _ := call.Input["command"].(string)
	line, _ := redact.Redact(resources.LineWithout(cmd, d.from))
	decoded := strings.Join(d.masked, " / ")
	if len(decoded) > maxDecodedShown {
		decoded = redact.OneLine(decoded, maxDecodedShown)
	}
	return "(decoded by the gate, credential masked: " + decoded + ") " + line
}
