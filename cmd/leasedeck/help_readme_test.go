package main

import (
	"flag"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// README's command table and the binary agree, both ways: every command has
// a row, every row names a command, and each row lists exactly the flags
// the command's FlagSet parses. --workspace may instead be covered by the
// README's sentence on how every registry subcommand finds its workspace.
func TestReadmeCommandTableMatchesBinary(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := readmeCommandRows(t, string(readme))
	workspaceSentence := strings.Contains(string(readme), "overridden by `--workspace DIR`")
	for _, c := range append([]command{cockpitCommand}, commandTable...) {
		documented, ok := rows[c.name]
		if !ok {
			t.Errorf("README's command table has no row for %q", "leasedeck "+c.name)
			continue
		}
		delete(rows, c.name)
		parsed := map[string]bool{}
		if fs := flagSetOf(&c); fs != nil {
			fs.VisitAll(func(f *flag.Flag) { parsed[f.Name] = true })
		}
		for f := range parsed {
			if !documented[f] && !(f == "workspace" && workspaceSentence) {
				t.Errorf("leasedeck %s parses -%s, README's row does not document it", c.name, f)
			}
		}
		for f := range documented {
			if !parsed[f] {
				t.Errorf("README documents leasedeck %s -%s, the binary does not parse it", c.name, f)
			}
		}
	}
	var extra []string
	for name := range rows {
		extra = append(extra, name)
	}
	sort.Strings(extra)
	for _, name := range extra {
		t.Errorf("README documents %q, the binary has no such command", "leasedeck "+name)
	}
}

var (
	readmeRow  = regexp.MustCompile("(?m)^\\| `leasedeck([^`]*)`")
	readmeFlag = regexp.MustCompile(`(?:^|[\s\[|])--?([a-z][a-z0-9-]*)`)
)

// readmeCommandRows maps each command in README's table ("" for the
// cockpit, "journal tail") to the flags its first cell shows.
func readmeCommandRows(t *testing.T, readme string) map[string]map[string]bool {
	rows := map[string]map[string]bool{}
	for _, m := range readmeRow.FindAllStringSubmatch(readme, -1) {
		cell := strings.TrimSpace(m[1])
		var name []string
		for _, w := range strings.Fields(cell) {
			if !regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(w) {
				break
			}
			name = append(name, w)
		}
		flags := map[string]bool{}
		for _, f := range readmeFlag.FindAllStringSubmatch(cell, -1) {
			flags[f[1]] = true
		}
		rows[strings.Join(name, " ")] = flags
	}
	if len(rows) < 10 {
		t.Fatalf("found only %d rows of README's command table", len(rows))
	}
	return rows
}
