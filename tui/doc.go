// Package tui is leasedeck's cockpit: the Bubble Tea (v2) program that
// `leasedeck` runs with no arguments.
//
// It follows the rules in shared/UI.md:
//
//   - One root model (Model). Everything below it is a plain struct or a
//     pure function: the Deck (what the journal says, folded with
//     registry.Fold into the cockpit's own State and approvals Book), the
//     flattened tree, and the renderers in render.go and detail.go, which
//     turn domain values into strings and are tested with plain asserts.
//   - No I/O in Update or View. The journal reaches the program through
//     the Feeder, the single bus: it loads both files, follows them with
//     journal.Tail, checks each line's hash chain and mac, and sends at most
//     ~30 batches a second. Actions (approve, deny, revoke) run as tea.Cmds
//     through an Actor — SocketActor, over the registry socket, whether the
//     registry runs in this process or another. WatchRegistry notices an
//     attached registry going away without polling it.
//   - View is cheap: only the visible rows of the tree are drawn, each
//     cached by (lease, width, version, time-left text, selection); the
//     tree is flattened once per change; layout is computed per resize.
//   - Keys are data (KeyMap): `?` help and the README key table are
//     generated from it. Styles are data (Theme): no renderer names a
//     colour.
//
// The simulated fleet behind `leasedeck demo` is in the demo subpackage.
package tui
