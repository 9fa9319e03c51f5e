//go:build linux

package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The workspace's journal on a 256 KiB file system that fills up while
// the registry serves: calls are refused while the disk is full (never
// allowed), status says the registry is retrying, and once space is
// freed the registry resumes by itself — no restart, no person.
func TestFullDiskRecoversWithoutAPerson(t *testing.T) {
	w := newWorkspace(t)
	jdir := filepath.Join(w.dir, ".leasedeck", "journal")
	if err := syscall.Mount("tmpfs", jdir, "tmpfs", 0, "size=256k,mode=0700"); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v)", err)
	}
	t.Cleanup(func() { syscall.Unmount(jdir, syscall.MNT_DETACH) })
	w.serve()
	lease := w.issue(w.writeManifest("agent", 100000, nil), "")
	if ok, r := w.allowedNow(lease); !ok {
		t.Fatalf("before the disk fills: %s", r)
	}
	filler := filepath.Join(jdir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()
	refused := false
	for i := 0; i < 200 && !refused; i++ {
		ok, _ := w.allowedNow(lease)
		refused = !ok
	}
	if !refused {
		t.Fatal("calls were still allowed on a full disk")
	}
	if h := w.health(); !strings.Contains(h, "no space left") || !strings.Contains(h, "retry") {
		t.Fatalf("health on a full disk:\n%s", h)
	}
	if ok, r := w.allowedNow(lease); ok {
		t.Fatalf("allowed while the disk is full: %s", r)
	}
	os.Remove(filler)
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(w.health(), `"health": "ok"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the registry did not resume:\n%s", w.health())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if ok, r := w.allowedNow(lease); !ok {
		t.Fatalf("after space came back: %s", r)
	}
	w.stop()
	r := w.run("", "journal", "verify")
	if r.code != 0 || !strings.Contains(r.stdout, "writing resumed") {
		t.Fatalf("verify: %+v", r)
	}
}
