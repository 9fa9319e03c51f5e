// Package vocab is the gate's tool vocabulary: Claude Code's tool names,
// onto which every client adapter maps its own tools. It is a leaf: the
// bridge, the registry, the summaries a human reads and the default root
// policy all use these names.
package vocab

// The names and their aliases are defined here once (DESIGN "Tool
// vocabulary").
const (
	Bash         = "Bash"
	PowerShell   = "PowerShell"
	Read         = "Read"
	Write        = "Write"
	Edit         = "Edit"
	MultiEdit    = "MultiEdit"
	NotebookEdit = "NotebookEdit"
	Glob         = "Glob"
	Grep         = "Grep"
	WebFetch     = "WebFetch"
	WebSearch    = "WebSearch"
	Agent        = "Agent"
	Task         = "Task" // Claude Code's earlier name for Agent
	TodoWrite    = "TodoWrite"
	BashOutput   = "BashOutput"
	KillShell    = "KillShell"
	ExitPlanMode = "ExitPlanMode"
)

// Tools is every name of the vocabulary, in the order the default root
// policy lists them. The slice is the caller's.
func Tools() []string {
	return []string{Bash, Read, Write, Edit, MultiEdit, NotebookEdit, Glob, Grep,
		WebFetch, WebSearch, Agent, Task, TodoWrite, BashOutput, KillShell, ExitPlanMode}
}

// Alias is the other name of a tool that has two (Agent and Task), or
// "" for a tool with one: a grant or a denial of either name covers both.
func Alias(name string) string {
	switch name {
	case Agent:
		return Task
	case Task:
		return Agent
	}
	return ""
}

// IsShell reports whether the tool runs a shell command line.
func IsShell(name string) bool { return name == Bash || name == PowerShell }
