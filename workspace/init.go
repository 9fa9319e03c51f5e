package workspace

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/leasedeck/leasedeck/durable"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/resources"
	"github.com/leasedeck/leasedeck/schemas"
	"github.com/leasedeck/leasedeck/workspace/locate"
)

// Clients lists the agent clients init writes a declared manifest for:
// the file name under agents/ is the client's runtime_agent.
var Clients = []string{"claude-code", "codex-cli", "gemini-code-assist", "github-copilot", "qwen-code", "opencode", "pi"}

// contractAgents are the runtime_agent values of the contract's closed
// vocabulary; a client outside it (Qwen Code, OpenCode, pi) declares "unknown", which an
// external agent may.
var contractAgents = map[string]bool{"claude-code": true, "codex-cli": true, "gemini-code-assist": true, "github-copilot": true}

// toolVocabulary is the gate's tool vocabulary (Claude Code's names).
var toolVocabulary = resources.Tools()

// devCommands are the programs the default root policy lets a lease name.
// Commands intersect by exact name (SPEC §5), so only what is listed here
// can ever be granted; edit policy.json to add more.
var devCommands = []string{"git", "go", "gofmt", "make", "node", "npm", "npx", "pnpm", "yarn", "tsc",
	"python", "python3", "pip", "pytest", "cargo", "rustc", "ls", "cat", "head", "tail", "wc", "grep",
	"rg", "find", "sed", "awk", "sort", "uniq", "cut", "tr", "diff", "jq", "echo", "printf", "pwd",
	"cd", "mkdir", "touch", "cp", "mv", "rm", "test", "true", "false", "which", "env", "xargs",
	"basename", "dirname", "date", "sleep", "bash", "sh", "curl", "tee", "stat", "file", "du", "tree"}

// protectedPaths are denied to every agent: the workspace state (journal,
// policy), credentials, leasedeck's per-user state and config (key,
// operator token; the registry adds the directories' current spellings
// itself, see ImplicitDenyPaths) and every client's hook settings, so no
// agent can touch the evidence, the key, its own hooks or the cockpit.
var protectedPaths = []string{".leasedeck/**", "~/.ssh/**", "~/.aws/**", "~/.gnupg/**", "~/.config/leasedeck/**",
	".claude/settings*.json", ".codex/**", ".gemini/**", ".github/hooks/**", ".vscode/settings.json", ".qwen/**",
	"~/.claude/settings*.json", "~/.claude.json", "~/.codex/**", "~/.gemini/**", "~/.qwen/**", "~/.copilot/**"}

func list(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// DefaultPolicy is the policy.json init writes.
func DefaultPolicy() map[string]any {
	return map[string]any{
		"root": map[string]any{
			"schema_version": registry.SchemaVersion,
			"agent":          map[string]any{"name": "workspace root policy", "kind": "native", "runtime_agent": "unknown"},
			"intent":         map[string]any{"purpose": "The workspace root policy every parentless lease is narrowed against."},
			"allow": map[string]any{
				"tools": list(toolVocabulary), "read_paths": list([]string{"**"}), "write_paths": list([]string{"**"}),
				"hosts": list([]string{"*"}), "commands": list(devCommands),
			},
			"deny": map[string]any{
				"commands": list([]string{"leasedeck", "sudo", "su", "doas"}),
				"paths":    list(protectedPaths),
				"hosts":    list(nil),
			},
			"budget":    map[string]any{"depth": int64(4), "fan_out": int64(8)},
			"approvals": list(nil),
		},
		"default_lifetime_ms": int64(DefaultLifetimeMs),
		"approval_timeout_ms": int64(ApprovalTimeoutMs),
		"mode":                "enforce",
		"protected_writes":    list(DefaultProtectedWrites),
		"hold_secrets":        true,
	}
}

// DefaultAgent is the declared manifest init writes for a client: the
// whole workspace to read and write, common development commands, any
// host, with deleting files, fetching from the web and curl held for a
// human.
func DefaultAgent(client string) map[string]any {
	runtimeAgent := client
	if !contractAgents[client] {
		runtimeAgent = "unknown"
	}
	return map[string]any{
		"schema_version": registry.SchemaVersion,
		"agent":          map[string]any{"name": client + " session", "kind": "external", "runtime_agent": runtimeAgent},
		"intent":         map[string]any{"purpose": "Work on this repository as directed by the developer at the keyboard."},
		"allow": map[string]any{
			"tools": list(toolVocabulary), "read_paths": list([]string{"**"}), "write_paths": list([]string{"**"}),
			"hosts": list([]string{"*"}), "commands": list(devCommands),
		},
		"deny":      map[string]any{"commands": list(nil), "paths": list([]string{".env", ".env.*"}), "hosts": list(nil)},
		"budget":    map[string]any{"steps": int64(5000), "depth": int64(3), "fan_out": int64(8)},
		"approvals": list([]string{"WebFetch", "command:rm", "command:curl"}),
	}
}

// InitResult says what init created and what it left as it was.
type InitResult struct {
	Workspace Workspace
	Created   []string
	Kept      []string
	Migrated  []string // what moved out of the workspace (see Migrate)
	TokenPath string
}

// Init creates .leasedeck/ in dir (0700, files 0600) with the default
// policy, the agents' declared manifests and the journal directory, and
// the state directory outside it with a fresh key, the operator token and
// the handshake secret. An existing workspace is migrated first (its key
// and token move to the state directory). Existing files are never
// overwritten.
func Init(dir string) (InitResult, error) {
	root, err := canonical(dir)
	if err != nil {
		return InitResult{}, fmt.Errorf("workspace directory %s: %w", dir, err)
	}
	p, err := locate.Open(root)
	w := Workspace(p)
	if err != nil {
		return InitResult{}, err
	}
	res := InitResult{Workspace: w}
	if err := w.EnsureStateDir(); err != nil {
		return res, err
	}
	for _, d := range []string{w.Dir(), w.AgentsDir(), w.JournalDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return res, err
		}
		if err := os.Chmod(d, 0o700); err != nil {
			return res, err
		}
	}
	if res.Migrated, err = w.Migrate(); err != nil {
		return res, err
	}
	write := func(path string, data []byte) error {
		if _, err := os.Stat(path); err == nil {
			res.Kept = append(res.Kept, path)
			return nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := durable.WriteFile(path, data, 0o600); err != nil {
			return err
		}
		res.Created = append(res.Created, path)
		return nil
	}
	pretty := func(v any) []byte {
		b, err := schemas.Pretty(v)
		if err != nil {
			panic(err) // our own defaults always canonicalise
		}
		return b
	}
	if err := write(w.PolicyPath(), pretty(DefaultPolicy())); err != nil {
		return res, err
	}
	for _, c := range Clients {
		if err := write(w.AgentPath(c), pretty(DefaultAgent(c))); err != nil {
			return res, err
		}
	}
	key, err := registry.NewRandomKey()
	if err != nil {
		return res, err
	}
	if err := write(w.KeyPath(), []byte(hex.EncodeToString(key)+"\n")); err != nil {
		return res, err
	}
	// Nothing secret is in .leasedeck/ any more; the journal and the
	// agents' files still stay out of version control.
	if err := write(filepath.Join(w.Dir(), ".gitignore"), []byte("*\n")); err != nil {
		return res, err
	}
	if _, err := w.EnsureToken(); err != nil {
		return res, fmt.Errorf("operator token: %w", err)
	}
	if _, err := w.EnsureHandshakeKey(); err != nil {
		return res, fmt.Errorf("handshake secret: %w", err)
	}
	res.TokenPath = w.TokenPath()
	return res, nil
}
