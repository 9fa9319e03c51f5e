// Package e2e runs the real agent clients — Claude Code, Codex CLI and
// Gemini CLI, installed from the npm registry at pinned versions into a
// cache outside the repository — headless against scripted model stand-ins
// on loopback (package fakemodel), with leasedeck's hooks installed by
// `leasedeck install <client>` and a real `leasedeck serve` in a temporary
// workspace. The tests prove on disk and in the model's next request that
// the clients are governed.
//
// What runs when:
//
//	go test ./e2e/...                      Claude Code scenarios (CI, every submission)
//	LEASEDECK_E2E=all go test ./e2e/...    also Codex CLI, Gemini CLI and the overhead timing
//	LEASEDECK_E2E=off go test ./e2e/...    nothing (every test skips)
//
// The clients are cached in $LEASEDECK_E2E_CACHE, default
// <os.UserCacheDir()>/leasedeck-e2e/npm/<package>@<version>, and reused.
// A client that cannot be installed (no npm, no network) is skipped with
// the reason; it never fails the run.
//
// The package has no non-test code; see README-tested-with.md for the
// coverage table.
package e2e
