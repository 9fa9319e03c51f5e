package main

import (
	"slices"
	"strings"

	"github.com/leasedeck/leasedeck/bridge"
)

// commandTable is the one description of the command line: dispatch, `help`,
// `CMD -h`, shell completion and the README check all read it, so they
// cannot drift apart. Flags are not listed here: they come from each
// command's own FlagSet (see flagSetOf), the one place that parses them.
var commandTable, cockpitCommand = []command(nil), command{}

// init fills the table: its rows name the run functions, which reach back
// to the table through usage, so a plain initialiser would be a cycle.
func init() {
	commandTable = slices.Concat(contractCommands(), registryCommands(), journalCommands(), clientCommands(), otherCommands())

	// cockpitCommand describes `leasedeck` with no subcommand.
	cockpitCommand = command{name: "", synopsis: "[--readonly] [--workspace DIR]",
		summary:  "the cockpit: embedded registry, or attached to the one already running",
		examples: []string{"leasedeck", "leasedeck --readonly", "leasedeck --workspace ~/src/project"},
		exits:    "0 on quit, 1 cannot start, 2 usage (or no terminal)", run: runCockpit}
}

// contractCommands: the contract core: schemas, canonical bytes, narrowing, signatures, the corpus.
func contractCommands() []command {
	return []command{
		{name: "validate", synopsis: "validate --shape SHAPE FILE",
			summary:  "check a document against a contract schema",
			args:     [][2]string{{"FILE", "the JSON document ('-' for stdin)"}},
			examples: []string{"leasedeck validate --shape manifest manifest.json", "cat lease.json | leasedeck validate --shape lease -"},
			exits:    "0 valid, 1 invalid (or not JSON), 2 usage", run: runValidate},
		{name: "canon", synopsis: "canon [--sha256] [FILE]",
			summary:  "print the canonical bytes (RFC 8785) of a JSON document",
			args:     [][2]string{{"FILE", "the JSON document (default and '-': stdin)"}},
			examples: []string{`echo '{"b":1,"a":2}' | leasedeck canon`, "leasedeck canon --sha256 lease.json"},
			exits:    "0, 1 invalid JSON or not canonicalisable, 2 usage", run: runCanon},
		{name: "narrow", synopsis: "narrow --parent PARENT.json DECLARED.json",
			summary:  "narrow a declared manifest against a parent grant (SPEC §5)",
			args:     [][2]string{{"DECLARED.json", "the manifest a child declares"}},
			examples: []string{"leasedeck narrow --parent parent.json child.json", "leasedeck narrow --parent parent.json - < child.json"},
			exits:    "0 granted, 1 schema-invalid input, 2 usage, 3 refused", run: runNarrow},
		{name: "verify", synopsis: "verify --key KEYFILE [--conformance] LEASE.json",
			summary:  "verify a signed lease: schema, signature, rules L1 and L2",
			args:     [][2]string{{"LEASE.json", "the signed lease ('-' for stdin)"}},
			examples: []string{"leasedeck verify --key key.hex lease.json", "leasedeck verify --conformance --key contract/key.hex lease.json"},
			exits:    "0 verifies, 1 does not (or bad key or input), 2 usage", run: runVerify},
		{name: "conformance", synopsis: "conformance [--corpus DIR] [-v] [--json]",
			summary:  "run the Agent Lease conformance corpus and print the report",
			examples: []string{"leasedeck conformance", "leasedeck conformance -v", "leasedeck conformance --json > report.json"},
			exits:    "0 all checked cases pass, 1 a case failed, 2 usage", run: runConformance},
	}
}

// registryCommands: the registry: the workspace, leases and approvals over its socket.
func registryCommands() []command {
	return []command{
		{name: "init", synopsis: "init [DIR]",
			summary:  "create .leasedeck/ (policy, agents, journal) and its state directory (key, operator token)",
			args:     [][2]string{{"DIR", "the workspace directory (default: .)"}},
			examples: []string{"leasedeck init", "leasedeck init ~/src/project"},
			exits:    "0, 1 cannot create, 2 usage", run: runInit},
		{name: "serve", synopsis: "serve [--workspace DIR]",
			summary:  "run the registry headless on its socket in the state directory",
			examples: []string{"leasedeck serve", "leasedeck serve --workspace ~/src/project &"},
			exits:    "0 stopped, 1 cannot start (another registry runs here, bad policy, journal locked), 2 usage", run: runServe},
		{name: "status", synopsis: "status [--workspace DIR]",
			summary:  "show the running registry's status",
			examples: []string{"leasedeck status", "leasedeck status --workspace ~/src/project"},
			exits:    "0, 4 registry unreachable", run: runStatus},
		{name: "issue", synopsis: "issue MANIFEST [--parent ID]",
			summary:  "present a manifest to the registry (optionally under --parent)",
			args:     [][2]string{{"MANIFEST", "the declared manifest ('-' for stdin)"}},
			examples: []string{"leasedeck issue manifest.json", "leasedeck issue --parent 3f2a9c1e child.json"},
			exits:    "0 granted, 1 invalid manifest or ambiguous --parent prefix, 3 refused, 4 registry unreachable", run: runIssue},
		{name: "leases", synopsis: "leases [--json]",
			summary:  "list leases and refusals",
			examples: []string{"leasedeck leases", "leasedeck leases --json | jq '.[].id'"},
			exits:    "0, 4 registry unreachable", run: runLeases},
		{name: "check", synopsis: "check --lease ID --tool NAME [--input JSON]",
			summary:  "dry-run the gate for a tool call (0 allow, 3 deny, 5 a human must decide)",
			examples: []string{`leasedeck check --lease 3f2a9c1e --tool Bash --input '{"command":"git status"}'`, `leasedeck check --lease 3f2a9c1e --tool Write --input '{"file_path":"src/a.go"}'`},
			exits:    "0 allow, 1 unknown lease, ambiguous id prefix or bad input, 3 deny, 4 registry unreachable, 5 a human must decide", run: runCheck},
		{name: "revoke", synopsis: "revoke ID --reason TEXT [--by ANCESTOR]",
			summary:  "revoke a lease and its whole subtree",
			args:     [][2]string{{"ID", "the lease id, or any unique prefix of it"}},
			examples: []string{`leasedeck revoke 3f2a9c1e --reason "wrong repository"`, `leasedeck revoke 3f2a9c1e --by 11aa22bb --reason "parent says stop"`},
			exits:    "0, 1 unknown lease or ambiguous id prefix, 3 not allowed, 4 registry unreachable", run: runRevoke},
		{name: "approvals", synopsis: "approvals [--json]",
			summary:  "list pending approval requests",
			examples: []string{"leasedeck approvals", "leasedeck approvals --json"},
			exits:    "0, 4 registry unreachable", run: runApprovals},
		{name: "approve", synopsis: "approve ID [--for-lease]",
			summary:  "approve a pending request (--for-lease to remember it)",
			args:     [][2]string{{"ID", "the approval request id, or any unique prefix of it"}},
			examples: []string{"leasedeck approve 9c1e3f2a", "leasedeck approve 9c1e3f2a --for-lease"},
			exits:    "0, 1 unknown id or ambiguous id prefix, 3 already decided, 4 registry unreachable", run: runDecide("approve")},
		{name: "deny", synopsis: "deny ID --reason TEXT",
			summary:  "deny a pending request with a reason",
			args:     [][2]string{{"ID", "the approval request id, or any unique prefix of it"}},
			examples: []string{`leasedeck deny 9c1e3f2a --reason "no pushes today"`},
			exits:    "0, 1 unknown id or ambiguous id prefix, 3 already decided, 4 registry unreachable", run: runDecide("deny")},
	}
}

// journalCommands: the journal files.
func journalCommands() []command {
	return []command{
		{name: "journal verify", synopsis: "journal verify [--pubkey KEY] [--workspace DIR] [DIR]",
			summary:  "verify the journal offline",
			args:     [][2]string{{"DIR", "the journal directory (default: the workspace's .leasedeck/journal)"}},
			examples: []string{"leasedeck journal verify", "leasedeck journal verify --pubkey ed25519:… /backup/journal"},
			exits:    "0 clean, 1 a break (or no journal or key), 2 usage", run: runJournalVerify},
		{name: "journal pubkey", synopsis: "journal pubkey [--workspace DIR] [DIR]",
			summary:  "print the checkpoints' public key, for journal verify --pubkey",
			args:     [][2]string{{"DIR", "the journal directory (default: the workspace's .leasedeck/journal)"}},
			examples: []string{"leasedeck journal pubkey"},
			exits:    "0, 1 no key yet, 2 usage", run: runJournalPubkey},
		{name: "journal tail", synopsis: "journal tail [--follow|-f] [--json] [-n N] [--workspace DIR] [DIR]",
			summary:  "print the latest journal lines, or follow them",
			args:     [][2]string{{"DIR", "the journal directory (default: the workspace's .leasedeck/journal)"}},
			examples: []string{"leasedeck journal tail", "leasedeck journal tail -f", "leasedeck journal tail -n 0 --json > all.jsonl"},
			exits:    "0, 1 no journal, 2 usage", run: runJournalTail},
	}
}

// clientCommands: clients: the bridge, hooks, installation, policy and confined runs.
func clientCommands() []command {
	return []command{
		{name: "bridge", synopsis: "bridge --workspace DIR [--max-wait D]",
			summary:  "answer one lifecycle request (stdin → stdout JSON) through the registry",
			examples: []string{`echo '{"op":"begin",…}' | leasedeck bridge --workspace ~/src/project`, "leasedeck bridge --workspace ~/src/project --max-wait 2m < request.json"},
			exits:    "0 a response (any decision), 1 invalid request, 4 registry unreachable", run: runBridge},
		{name: "hook", synopsis: "hook CLIENT --workspace DIR [--timeout S]",
			summary:  "answer a client's native hook (claude-code, codex, gemini, vscode, qwen-code, opencode, pi, copilot)",
			args:     [][2]string{{"CLIENT", "claude-code, codex, gemini, vscode, qwen-code, opencode, pi or copilot"}},
			examples: []string{"leasedeck hook claude-code --workspace ~/src/project < payload.json", "leasedeck hook gemini --workspace ~/src/project --timeout 600"},
			exits:    "the client's convention: 0 with a JSON decision, 2 to block (reason on stderr, also for a payload whose event cannot be told)", run: runHook},
		{name: "install", synopsis: "install CLIENT [--scope project|user] [--dry-run] [--command PATH] [--fail-closed] [--optional] [--command-hooks]",
			summary:  "write or merge a client's hook configuration (opencode, pi: write leasedeck's plugin; Claude Code: HTTP hooks served by the registry, unless --command-hooks)",
			args:     [][2]string{{"CLIENT", "claude-code, codex, gemini, vscode, qwen-code, opencode, pi or copilot"}},
			examples: []string{"leasedeck install claude-code", "leasedeck install codex --scope user --dry-run", "leasedeck install claude-code --command-hooks", "leasedeck install pi"},
			exits:    "0, 1 cannot write, 2 usage, 3 the binary is a temporary go run build (go install it first)", run: runInstall},
		{name: "uninstall", synopsis: "uninstall CLIENT [--scope project|user] [--dry-run]",
			summary:  "remove what install wrote to a client's hook configuration (the file as it was, mode included, when nothing else changed)",
			args:     [][2]string{{"CLIENT", strings.Join(bridge.Clients(), ", ")}},
			examples: []string{"leasedeck uninstall claude-code", "leasedeck uninstall codex --scope user --dry-run"},
			exits:    "0 (also when nothing was installed), 1 cannot read or write the file, 2 usage, 3 a plugin file edited since install is left in place", run: runUninstall},
		{name: "doctor", synopsis: "doctor [--workspace DIR] [--json]",
			summary:  "check the clients' hooks, the registry, confined mode and the journal, with the command that fixes each problem",
			examples: []string{"leasedeck doctor", "leasedeck doctor --json | jq '.findings[] | select(.status == \"problem\")'"},
			exits:    "0 all is well, 1 a problem was found (each with its fix), 2 usage", run: runDoctor},
		{name: "policy", synopsis: "policy reload|show [--json]",
			summary:  "reload the workspace's policy into the running registry (operator), or show the one in force",
			args:     [][2]string{{"reload|show", "reload: read policy.json and agents/*.json again (needs the operator token); show: the policy in force"}},
			examples: []string{"leasedeck policy reload", "leasedeck policy show --json"},
			exits:    "0, 1 bad policy, 3 no operator token, 4 registry unreachable", run: runPolicy},
		{name: "run", synopsis: "run --client NAME [--workspace DIR] [--allow-unconfined] -- COMMAND [ARGS...]",
			summary:  "run a client confined by its session lease (Landlock, egress proxy, revocation)",
			args:     [][2]string{{"COMMAND [ARGS...]", "the client to run, after --"}},
			examples: []string{"leasedeck run --client claude-code -- claude", "leasedeck run --client codex-cli --allow-unconfined -- codex"},
			exits:    "COMMAND's status; 2 usage, 3 refused, 4 no registry, 6 lease ended, 125 confinement failed, 127 COMMAND not found", run: runRun},
	}
}

// otherCommands: the demo and the command line itself.
func otherCommands() []command {
	return []command{
		{name: "demo", synopsis: "demo [--agents N] [--pace D]",
			summary:  "the cockpit with a simulated fleet of agents, in a temporary workspace",
			examples: []string{"leasedeck demo", "leasedeck demo --agents 8 --pace 300ms"},
			exits:    "0, 1 cannot start, 2 usage", run: runDemo},
		{name: "completion", synopsis: "completion bash|zsh|fish",
			summary:  "print a shell completion script",
			args:     [][2]string{{"SHELL", "bash, zsh or fish"}},
			examples: []string{"source <(leasedeck completion bash)", "leasedeck completion zsh > \"${fpath[1]}/_leasedeck\"", "leasedeck completion fish > ~/.config/fish/completions/leasedeck.fish"},
			exits:    "0, 2 unknown shell", run: runCompletion},
		{name: "version", synopsis: "version",
			summary:  "print the module version and commit this binary was built from",
			examples: []string{"leasedeck version", "leasedeck --version"},
			exits:    "0", run: runVersion},
		{name: "help", synopsis: "help [COMMAND]",
			summary:  "list the commands, or describe one",
			args:     [][2]string{{"COMMAND", "a command name (journal subcommands: 'journal tail')"}},
			examples: []string{"leasedeck help", "leasedeck help revoke", "leasedeck help journal tail"},
			exits:    "0, 2 unknown command", run: runHelp},
	}
}
