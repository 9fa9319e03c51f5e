//go:build unix

package bridge

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A transcript path that names a FIFO (which no one writes to) is refused
// at once: opening it must not hold the hook, or the registry's HTTP hook
// handler, until a writer comes.
func TestTranscriptUsageRefusesAFIFOAtOnce(t *testing.T) {
	p := filepath.Join(t.TempDir(), "transcript.jsonl")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := TranscriptUsage(p, "")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("no error for a FIFO")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("TranscriptUsage blocked on a FIFO")
	}
}
