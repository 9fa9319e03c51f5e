package resources

import "github.com/leasedeck/leasedeck/vocab"

// The gate's tool vocabulary is package vocab's (a leaf the bridge uses
// without linking this package); these are its names as this package has
// always spelled them.
const (
	ToolBash         = vocab.Bash
	ToolPowerShell   = vocab.PowerShell
	ToolRead         = vocab.Read
	ToolWrite        = vocab.Write
	ToolEdit         = vocab.Edit
	ToolMultiEdit    = vocab.MultiEdit
	ToolNotebookEdit = vocab.NotebookEdit
	ToolGlob         = vocab.Glob
	ToolGrep         = vocab.Grep
	ToolWebFetch     = vocab.WebFetch
	ToolWebSearch    = vocab.WebSearch
	ToolAgent        = vocab.Agent
	ToolTask         = vocab.Task
	ToolTodoWrite    = vocab.TodoWrite
	ToolBashOutput   = vocab.BashOutput
	ToolKillShell    = vocab.KillShell
	ToolExitPlanMode = vocab.ExitPlanMode
)

// Tools is every name of the vocabulary, in the default root policy's order.
func Tools() []string { return vocab.Tools() }

// ToolAlias is the other name of a tool that has two (Agent and Task).
func ToolAlias(name string) string { return vocab.Alias(name) }

// IsShellTool reports whether the tool runs a shell command line.
func IsShellTool(name string) bool { return vocab.IsShell(name) }
