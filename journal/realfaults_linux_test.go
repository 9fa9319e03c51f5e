//go:build linux

package journal

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// mountTiny mounts a tmpfs of size bytes at a new directory, or skips the
// test where mounting is not allowed (not root, no CAP_SYS_ADMIN).
func mountTiny(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v): the injected ENOSPC of TestWriterResumesAfterTransientErrors still runs", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// A real full disk: the journal on a 256 KiB tmpfs, filled by another
// file until appends fail with ENOSPC. The writer fails closed while the
// disk is full and resumes by itself when space comes back.
func TestWriterOnAFullDisk(t *testing.T) {
	fs := mountTiny(t, "256k")
	a := newAnchored(t)
	a.dir = filepath.Join(fs, "journal")
	a.opts.RetryMin, a.opts.RetryMax = 5*time.Millisecond, 50*time.Millisecond
	w := a.open(t)
	defer w.Close()
	appendT(t, w, Leases, heartbeat(1))
	// Fill what is left of the disk.
	filler := filepath.Join(fs, "filler")
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
	var failed error
	for i := 2; i < 200 && failed == nil; i++ {
		_, failed = w.Append(Audit, gateAllowed(i))
	}
	var we *WriteError
	if !errors.As(failed, &we) || !errors.Is(failed, syscall.ENOSPC) {
		t.Fatalf("append on a full disk: %v", failed)
	}
	waitStatus(t, w, "retrying")
	if _, err := w.Append(Leases, heartbeat(2)); !errors.Is(err, ErrStopped) {
		t.Fatalf("append while the disk is full: %v", err)
	}
	os.Remove(filler)
	waitStatus(t, w, "ok")
	appendT(t, w, Leases, heartbeat(2))
	w.Close()
	if r := a.verify(t, testKey, a.pub(t)); !r.OK() {
		t.Fatalf("verify: %s", breaksString(r.Breaks))
	}
}

// A real EPERM: the lease file made immutable (chattr +i) under the open
// writer, as an administrator or a hostile process with the capability
// might. Writes fail with EPERM while it lasts; the writer resumes by
// itself once the flag is cleared.
func TestWriterOnAnImmutableFile(t *testing.T) {
	chattr, err := exec.LookPath("chattr")
	if err != nil {
		t.Skip("no chattr")
	}
	a := newAnchored(t)
	a.opts.RetryMin, a.opts.RetryMax = 5*time.Millisecond, 50*time.Millisecond
	w := a.open(t)
	defer w.Close()
	appendT(t, w, Leases, heartbeat(1))
	path := journalPath(a.dir, Leases)
	if out, err := exec.Command(chattr, "+i", path).CombinedOutput(); err != nil {
		t.Skipf("chattr +i is not allowed here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command(chattr, "-i", path).Run() })
	_, err = w.Append(Leases, heartbeat(2))
	if !errors.Is(err, syscall.EPERM) {
		t.Fatalf("append to an immutable file: %v", err)
	}
	waitStatus(t, w, "retrying")
	if _, err := w.Append(Audit, gateAllowed(2)); !errors.Is(err, ErrStopped) {
		t.Fatalf("append while the file is immutable: %v", err)
	}
	if out, err := exec.Command(chattr, "-i", path).CombinedOutput(); err != nil {
		t.Fatalf("chattr -i: %v %s", err, out)
	}
	waitStatus(t, w, "ok")
	if got := appendT(t, w, Leases, heartbeat(2)); got.Seq != 2 {
		t.Fatalf("after the flag was cleared: %+v", got)
	}
	w.Close()
	if r := a.verify(t, testKey, a.pub(t)); !r.OK() {
		t.Fatalf("verify: %s", breaksString(r.Breaks))
	}
}
