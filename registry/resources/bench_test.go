package resources

import "testing"

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
