package hookhttp

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Install and the registry may both record the endpoint at once: every
// caller gets the same one, and it is never replaced afterwards.
func TestEnsureRecordsOnce(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	got := make([]Endpoint, 8)
	errs := make([]error, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = Ensure(dir)
		}()
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil || got[i] != got[0] {
			t.Fatalf("caller %d: %+v %v, caller 0: %+v", i, got[i], errs[i], got[0])
		}
	}
	if len(got[0].Token) != 64 || got[0].Port <= 0 {
		t.Fatalf("endpoint %+v", got[0])
	}
	again, err := Ensure(dir)
	if err != nil || again != got[0] {
		t.Fatalf("a later Ensure: %+v %v", again, err)
	}
	st, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil || st.Mode().Perm()&0o077 != 0 {
		t.Fatalf("the record is readable by others: %v %v", st.Mode(), err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, FileName+".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A damaged record is an error naming it, never silently replaced (the
// installed hooks name its port and token).
func TestEnsureRefusesADamagedRecord(t *testing.T) {
	for name, content := range map[string]string{
		"not JSON":    "{",
		"no port":     `{"token":"0123456789abcdef0123456789abcdef"}`,
		"short token": `{"port":4000,"token":"abc"}`,
		"port range":  `{"port":70000,"token":"0123456789abcdef0123456789abcdef"}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, FileName), []byte(content), 0o600)
			if e, err := Ensure(dir); err == nil {
				t.Errorf("accepted %q as %+v", content, e)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, FileName)); string(b) != content {
				t.Errorf("the record was replaced: %s", b)
			}
		})
	}
}
