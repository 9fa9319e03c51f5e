package resources

// The gate's tool vocabulary: Claude Code's tool names, onto which every
// client adapter maps its own tools (DESIGN "Tool vocabulary"). The names
// and their aliases are defined here once; the bridge, the registry, the
// summaries a human reads and the default root policy all use these.
const (
	ToolBash         = "Bash"
	ToolPowerShell   = "PowerShell"
	ToolRead         = "Read"
	ToolWrite        = "Write"
	ToolEdit         = "Edit"
	ToolMultiEdit    = "MultiEdit"
	ToolNotebookEdit = "NotebookEdit"
	ToolGlob         = "Glob"
	ToolGrep         = "Grep"
	ToolWebFetch     = "WebFetch"
	ToolWebSearch    = "WebSearch"
	ToolAgent        = "Agent"
	ToolTask         = "Task" // Claude Code's earlier name for Agent
	ToolTodoWrite    = "TodoWrite"
	ToolBashOutput   = "BashOutput"
	ToolKillShell    = "KillShell"
	ToolExitPlanMode = "ExitPlanMode"
)

// Tools is every name of the vocabulary, in the order the default root
// policy lists them. The slice is the caller's.
func Tools() []string {
	return []string{ToolBash, ToolRead, ToolWrite, ToolEdit, ToolMultiEdit, ToolNotebookEdit, ToolGlob, ToolGrep,
		ToolWebFetch, ToolWebSearch, ToolAgent, ToolTask, ToolTodoWrite, ToolBashOutput, ToolKillShell, ToolExitPlanMode}
}

// ToolAlias is the other name of a tool that has two (Agent and Task), or
// "" for a tool with one: a grant or a denial of either name covers both.
func ToolAlias(name string) string {
	switch name {
	case ToolAgent:
		return ToolTask
	case ToolTask:
		return ToolAgent
	}
	return ""
}

// IsShellTool reports whether the tool runs a shell command line.
func IsShellTool(name string) bool { return name == ToolBash || name == ToolPowerShell }
