// Package resources derives what a single tool call touches — the paths it
// reads and writes, the hosts it reaches, and every program it runs — for the
// permission gate described in DESIGN "The registry" and in SPEC §4.4.
//
// Everything here is a pure function of its input (plus the file system for
// symlink resolution and the current user's home directory). Nothing executes,
// nothing is cached.
//
// The guiding rule is fail closed: when the package cannot determine a
// resource statically, it returns an error and the gate refuses. It never
// guesses in the permissive direction. Where a construct is ambiguous the
// package over-approximates: it may report an extra executable or an extra
// path (the gate then refuses something harmless), but it must never omit one.
//
// Overview:
//
//   - [Shell] parses a bash command line with mvdan.cc/sh/v3/syntax and returns
//     its executables, redirection targets and whether it feeds dynamic input
//     to an interpreter.
//   - [ResolvePath] turns a tool's path argument into a [PathRef]: a resolved
//     absolute path, its workspace-relative form, its home-relative form and
//     whether it is inside the workspace after symlinks are followed.
//   - [MatchGlob] and [MatchDenyPath] match workspace-relative globs with
//     doublestar semantics; a deny pattern may be home-relative (~/.ssh/**).
//   - [HostOf], [HostContains] and [HostPatternContains] implement host
//     identity and containment (SPEC §4.4 and §5.1).
//   - [FromToolCall] maps a call in Claude Code's tool vocabulary (DESIGN
//     "Tool vocabulary and exit codes") to a [Use].
package resources
