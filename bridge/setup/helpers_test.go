package setup

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leasedeck/leasedeck/bridge"
)

var update = flag.Bool("update", false, "rewrite golden files")

func secs(n int) time.Duration { return time.Duration(n) * time.Second }

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, x, y)
		}
	}
	return ""
}

func adapter(t *testing.T, client string) bridge.Adapter {
	t.Helper()
	a, err := bridge.AdapterFor(client)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
