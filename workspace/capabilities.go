package workspace

// CapabilityDir holds the session capabilities the registry hands the
// hook (one 0600 file per client session), in the state directory outside
// the workspace, where the root policy denies agents.
func (w Workspace) CapabilityDir() string { return w.place().CapabilityDir() }
