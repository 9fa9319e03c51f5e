package resources

// Shell is ShellAt with no start directory (patterns are not expanded).
func Shell(command string) (use ShellUse, err error) { return ShellAt(command, "") }
