package resources

import (
	"strings"
	"testing"
)

func BenchmarkShell(b *testing.B) {
	const cmd = `cd src && go test -race ./... 2>&1 | tee /tmp/test.log | grep -v '^ok' > failures.txt; echo "done: $(date +%s)"`
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Shell(cmd); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFromToolCallWrite(b *testing.B) {
	ws := b.TempDir()
	input := map[string]any{"file_path": "internal/pkg/file.go", "content": "package pkg\n"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromToolCall(ws, "Write", input); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkShell64KiB is the largest line the gate reads: one echo of
// 64 KiB of words.
func BenchmarkShell64KiB(b *testing.B) {
	cmd := "echo " + strings.Repeat("word ", 64<<10/5)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Shell(cmd); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkShellOrdinary is a mix of ordinary lines, each analysed where a
// workspace would be.
func BenchmarkShellOrdinary(b *testing.B) {
	lines := []string{"git status", "set -e; npm test", "grep -rn TODO .", `git log --author="$(git config user.name)"`,
		"cd src && go test ./...", "sed -n '1,10p' src/a.go", "find . -name '*.go' | head"}
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if _, err := ShellAt(l, dir); err != nil {
				b.Fatal(err)
			}
		}
	}
}
