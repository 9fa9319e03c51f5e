package demo

import "fmt"

// The fleet's scripts: fixed sequences, so a demo run (and the test that
// drives one) always shows the same kinds of decisions.

type stepKind int

const (
	stepCall      stepKind = iota // gate, then report what happened
	stepUngated                   // report only: a tool that ran without a gate
	stepTelemetry                 // usage for the turn
	stepSubagent                  // a subagent session with a child lease
)

type step struct {
	kind   stepKind
	tool   string
	input  map[string]any
	tokens int64
	cost   float64
	source string
	sub    *subagent
}

type subagent struct {
	role     string
	purpose  string
	tools    []string
	write    []string
	commands []string
	budget   int64 // declared steps
	fanOut   int64
	steps    []step
}

type script struct {
	role    string
	purpose string
	steps   []step
}

func call(tool string, kv ...string) step {
	in := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		in[kv[i]] = kv[i+1]
	}
	return step{kind: stepCall, tool: tool, input: in}
}

func bash(cmd string) step { return call("Bash", "command", cmd) }

func usage(tokens int64, cost float64, source string) step {
	return step{kind: stepTelemetry, tokens: tokens, cost: cost, source: source}
}

func sub(s *subagent, steps ...step) step {
	s.steps = steps
	return step{kind: stepSubagent, sub: s}
}

var scripts = []script{
	{
		role: "payments refactor", purpose: "Refactor the payment module onto the new billing API",
		steps: []step{
			call("Read", "file_path", "src/payments/charge.go"),
			call("Grep", "pattern", "ChargeCard", "path", "src"),
			call("Edit", "file_path", "src/payments/charge.go"),
			bash("go test ./src/payments/..."),
			usage(2400, 0.018, "provider_reported"),
			sub(&subagent{role: "test-writer", purpose: "Write table tests for the new charge flow",
				tools: []string{"Read", "Write", "Edit", "Bash", "mcp__github__create_pr"}, write: []string{"tests/**", "src/payments/**"},
				commands: []string{"go", "git", "docker"}, budget: 9000, fanOut: 2},
				call("Read", "file_path", "src/payments/charge.go"),
				call("Write", "file_path", "tests/payments/charge_test.go"),
				bash("go test ./tests/payments/..."),
				call("Write", "file_path", "src/main.go"),
				usage(1800, 0.011, "provider_reported"),
			),
			// A held call whose comment is longer than a line: the
			// approval shows it whole, the rm on a line of its own.
			bash("# clean the outputs before the release build: make regenerates build/ and dist/, and neither is ever checked in (docs/release.md)\nrm -rf build/ dist/"),
			bash("git commit -am 'payments: billing API'"),
			usage(900, 0.007, "provider_reported"),
		},
	},
	{
		role: "CI fixes", purpose: "Make the CI pipeline green again",
		steps: []step{
			call("Read", "file_path", ".github/workflows/ci.yml"),
			call("Edit", "file_path", ".github/workflows/ci.yml"),
			bash("npm test"),
			bash("sudo apt-get install -y jq"),
			usage(3100, 0.024, "provider_reported"),
			sub(&subagent{role: "docs-writer", purpose: "Document the CI changes in docs/",
				tools: []string{"Read", "Write", "Edit"}, write: []string{"docs/**"}, budget: 60},
				call("Write", "file_path", "docs/ci.md"),
				// The scope violation: a write outside write_paths that
				// the client never gated. The registry revokes the lease.
				step{kind: stepUngated, tool: "Write", input: map[string]any{"file_path": "src/app.ts"}},
				call("Read", "file_path", "docs/ci.md"),
			),
			bash("curl -o vendor/jq.tgz https://github.com/jqlang/jq/archive/refs/tags/jq-1.7.tar.gz"),
			bash("npm test"),
		},
	},
	{
		role: "dependency audit", purpose: "Audit third-party dependencies for known vulnerabilities",
		steps: []step{
			call("Read", "file_path", "go.mod"),
			bash("go list -m all"),
			sub(&subagent{role: "ticket-bot", purpose: "File tickets for vulnerable modules",
				tools: []string{"mcp__jira__create_issue"}, budget: 20}),
			call("WebFetch", "url", "https://pkg.go.dev/vuln/list"),
			usage(5200, 0.041, "estimate"),
			call("Read", "file_path", ".env"),
			call("Write", "file_path", "docs/deps-audit.md"),
		},
	},
	{
		role: "flaky test hunt", purpose: "Find and fix the flaky integration tests",
		steps: []step{
			bash("go test -count=5 ./integration/..."),
			call("Read", "file_path", "integration/db_test.go"),
			sub(&subagent{role: "bisector", purpose: "Bisect the commit that made db_test flaky",
				tools: []string{"Read", "Bash", "Grep"}, write: []string{}, commands: []string{"git", "go"}, budget: 40},
				bash("git log --oneline -20"),
				bash("git bisect start"),
				call("Read", "file_path", "integration/db_test.go"),
			),
			call("Read", "file_path", "~/.ssh/id_ed25519"),
			call("Edit", "file_path", "integration/db_test.go"),
			usage(4100, 0.033, "provider_reported"),
		},
	},
}

// idleTurn is the small work an agent keeps doing once its script is
// done, so the cockpit stays alive; every few turns it asks for an
// approval again.
func idleTurn(turn, n int) []step {
	files := []string{"README.md", "src/payments/charge.go", "go.mod", "docs/ci.md", "integration/db_test.go"}
	f := files[(turn+n)%len(files)]
	steps := []step{
		call("Read", "file_path", f),
		call("Grep", "pattern", "TODO", "path", "src"),
		bash("git status --short"),
		usage(int64(600+100*((turn+n)%7)), 0.004, "provider_reported"),
	}
	if turn%6 == 5 {
		steps = append(steps, bash(fmt.Sprintf("rm -f tmp/scratch-%d.txt", turn)))
	}
	return steps
}

// subManifest is a subagent's declared manifest: narrower than its
// parent's on purpose, and asking for a little more than the parent can
// give, so the Narrowing tab has something to show.
func subManifest(client string, s *subagent) map[string]any {
	list := func(x []string) []any {
		out := make([]any, 0, len(x))
		for _, v := range x {
			out = append(out, v)
		}
		return out
	}
	write := s.write
	budget := map[string]any{"steps": s.budget, "depth": int64(1), "fan_out": s.fanOut, "wall_clock_ms": int64(45 * 60 * 1000)}
	return map[string]any{
		"schema_version": "1.2",
		"agent":          map[string]any{"name": s.role, "kind": "external", "runtime_agent": client},
		"intent":         map[string]any{"purpose": s.purpose},
		"allow": map[string]any{"tools": list(s.tools), "read_paths": list([]string{"**"}), "write_paths": list(write),
			"hosts": list(nil), "commands": list(s.commands)},
		"deny":      map[string]any{"commands": list(nil), "paths": list(nil), "hosts": list(nil)},
		"budget":    budget,
		"approvals": list(nil),
	}
}
