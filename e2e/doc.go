// Package e2e runs the real agent clients — Claude Code, Codex CLI, Gemini
// CLI, Qwen Code, Copilot CLI, pi and OpenCode, installed from the npm
// registry at pinned versions into a cache outside the repository —
// headless against scripted model stand-ins on loopback (package
// fakemodel), with leasedeck's hooks (for pi and OpenCode, its plugin)
// installed by `leasedeck install <client>` and a real `leasedeck serve` in a temporary
// workspace. The tests prove on disk and in the model's next request that
// the clients are governed.
//
// What runs when:
//
//	go test ./e2e/...                      Claude Code scenarios (CI, every submission)
//	LEASEDECK_E2E=all go test ./e2e/...    also every other client and the overhead timing
//	LEASEDECK_E2E=pi,opencode go test ./e2e/...   also the clients named (qwen, copilot, pi, opencode)
//	LEASEDECK_E2E=off go test ./e2e/...    nothing (every test skips)
//
// The clients are cached in $LEASEDECK_E2E_CACHE, default
// <os.UserCacheDir()>/leasedeck-e2e/npm/<package>@<version>, and reused.
// A client that cannot be installed (no npm, no network) is skipped with
// the reason; it never fails the run.
//
// The package has no non-test code; README's "Tested with" has the
// coverage table.
package e2e
