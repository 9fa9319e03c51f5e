// Package tui is leasedeck's cockpit: the Bubble Tea (v2) program that
// `leasedeck` runs with no arguments. It exports only what the command
// needs: Options, the Modes, the Actor it acts through (SocketActor),
// Run and ErrServeInBackground.
//
// It follows the rules in shared/UI.md, and lays its files out as the
// Go TUIs it learns from do:
//
//   - One root model (model.go): it owns every piece of state and is the
//     only tea.Model. Everything below it is a plain struct or a pure
//     function: the deck (deck.go: what the journal says, folded with
//     registry.Fold into the cockpit's own State and approvals Book), the
//     flattened tree (tree.go), and components that draw themselves with
//     Render(width) — a lease row (leaserow.go), the status bar
//     (statusbar.go), the detail tabs (detail.go), the journal feed
//     (feed.go), gauges (gauge.go).
//   - Dialogs (dialog.go) — approval, the approvals view (queue),
//     revoke, filter, help, quit — each in its own file (dialog_*.go)
//     with its state, its keys and its view together. An open dialog
//     gets keys before the main screen (mainkeys.go). A request that
//     opens by itself never takes a key typed for something else
//     (dialog_approval.go says how); the bell is rate-limited (bell.go).
//   - No I/O in Update or View. The journal reaches the program through
//     the feeder (feeder.go), the single bus: it loads both files,
//     follows them with journal.Tail, checks each line's hash chain and
//     mac, and sends at most ~30 batches a second. Actions (approve, deny,
//     revoke) run as tea.Cmds through an Actor — SocketActor, over the
//     registry socket, whether the registry runs in this process or
//     another (remote.go). watchRegistry notices an attached registry
//     going away without polling it.
//   - View is cheap (view.go): only the visible rows of the tree are
//     drawn, each cached by (lease, width, version, time-left text,
//     selection); the tree is flattened once per change; layout is
//     computed per resize.
//   - Keys are data (keys.go): `?` help and the README key table are
//     generated from the key map. Styles are data (theme.go): no renderer
//     names a colour.
//
// The simulated fleet behind `leasedeck demo` is in the demo subpackage.
package tui
