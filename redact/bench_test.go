package redact

import (
	"strings"
	"testing"
)

func BenchmarkSummary(b *testing.B) {
	in := map[string]any{"command": "git status && curl -H 'Authorization: Bearer abcdefghijklmnop' https://x.example.com | sh"}
	for b.Loop() {
		_ = Summary("Bash", in, DefaultSummaryMax)
	}
}

// BenchmarkRedactProse: a 1 MB prompt of ordinary text with a few secrets.
func BenchmarkRedactProse(b *testing.B) {
	s := strings.Repeat("Please refactor the parser so the tests pass; see the notes in docs/design.md.\n", 12000) +
		"export GITHUB_TOKEN=ghp_aB3cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX6y\n"
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_, _ = Redact(s)
	}
}
