package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/registry/record"
	"github.com/leasedeck/leasedeck/termtext"
	"github.com/leasedeck/leasedeck/workspace"
)

// defaultJournalDir is where `leasedeck journal` looks without a DIR.
var defaultJournalDir = filepath.Join(".leasedeck", "journal")

// runJournal is `leasedeck journal verify|tail`: the journal read from the
// outside, with no registry running and no lock taken.
func runJournal(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		journalUsage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "verify":
		return runJournalVerify(args[1:], e)
	case "tail":
		return runJournalTail(args[1:], e)
	case "pubkey":
		return runJournalPubkey(args[1:], e)
	case "-h", "--help", "help":
		journalUsage(stdout)
		return exitOK
	}
	e.errorf("journal: unknown subcommand %q", args[0])
	journalUsage(stderr)
	return exitUsage
}

func journalUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: leasedeck journal verify [--pubkey KEY] [DIR]")
	fmt.Fprintln(w, "       leasedeck journal tail [--follow] [--json] [-n N] [DIR]")
	fmt.Fprintln(w, "       leasedeck journal pubkey [DIR]")
	fmt.Fprintf(w, "DIR defaults to %s; the key is read from the workspace's state directory.\n", defaultJournalDir)
}

// journalDir resolves the DIR argument and checks that it is a directory,
// so that a typo gives "no journal at …" rather than an empty success.
// Without DIR the workspace is found as every other subcommand finds it
// (--workspace, $LEASEDECK_WORKSPACE, the nearest .leasedeck/ upward).
func journalDir(pos []string, sub, wsFlag string, e *env) (string, bool) {
	dir := defaultJournalDir
	if len(pos) == 1 {
		dir = pos[0]
	} else if w, ok := findWorkspace(wsFlag, e); ok {
		dir = w.JournalDir()
	} else {
		return "", false
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		e.errorf("journal %s: no journal at %s (run 'leasedeck init' in the workspace, or pass DIR)", sub, dir)
		return "", false
	case err != nil:
		e.errorf("journal %s: cannot read %s: %v", sub, dir, unwrapPathErr(err))
		return "", false
	case !st.IsDir():
		e.errorf("journal %s: %s is not a directory", sub, dir)
		return "", false
	}
	return dir, true
}

func runJournalVerify(args []string, e *env) int {
	fs := flag.NewFlagSet("journal verify", flag.ContinueOnError)
	pubText := fs.String("pubkey", "", "prove the journal with the checkpoints' public key alone (ed25519:<hex>, as 'journal pubkey' prints it): no HMAC key, no state directory")
	ws := workspaceFlag(fs)
	pos, ok := parseFlags(fs, args, e)
	if !ok || len(pos) > 1 {
		fmt.Fprintln(e.stderr, "usage: leasedeck journal verify [--pubkey KEY] [DIR]")
		return exitUsage
	}
	dir, ok := journalDir(pos, "verify", *ws, e)
	if !ok {
		return exitInvalid
	}
	boundVerifyMemory()
	var r journal.Report
	if *pubText != "" {
		pub, err := journal.ParsePublicKey(*pubText)
		if err != nil {
			e.errorf("journal verify: --pubkey: %v", err)
			return exitUsage
		}
		// A third party's check: the chain, the schemas, the lease rules
		// that need no key, and every checkpoint's signature.
		r = registry.VerifyJournal(dir, nil, journal.VerifyOptions{PublicKey: pub, RequireProof: true})
	} else {
		key, anchors, code := verifyAnchors(dir, e)
		if code != exitOK {
			return code
		}
		// The journal's own checks (lines, chain, macs, schemas, the kept
		// head, the checkpoints) and the lease rules the registry folds by
		// (signatures, L1–L3, every status folds).
		r = registry.VerifyJournal(dir, &key, anchors)
	}
	return printVerifyReport(dir, r, e)
}

// verifyMemoryLimit is the garbage collector's soft limit for `journal
// verify`. The scan lets the heap grow to five times its live data to
// collect less often (journal.relaxGC); verify's live data is a few tens
// of MB whatever the journal's length (lines in flight, the leases open at
// once), so this limit keeps its peak near 150 MB at a small cost in
// collections. It is soft: a larger live set is never refused, only
// collected more often. GOMEMLIMIT, when set, is the user's choice.
const verifyMemoryLimit = 150 << 20

func boundVerifyMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(verifyMemoryLimit)
	}
}

// verifyAnchors reads the deployment key and finds the kept head and the
// checkpoint key of the workspace whose journal dir is.
func verifyAnchors(dir string, e *env) (registry.Key, journal.VerifyOptions, int) {
	keyPath, note := journalKeyPath(dir)
	if note != "" {
		fmt.Fprintf(e.stderr, "note: %s\n", note)
	}
	text, err := os.ReadFile(keyPath)
	if err != nil {
		e.errorf("journal verify: cannot read the deployment key %s: %v (macs cannot be checked without it; a third party verifies with --pubkey)", keyPath, unwrapPathErr(err))
		return registry.Key{}, journal.VerifyOptions{}, exitInvalid
	}
	kb, err := registry.ParseKeyHex(string(text))
	if err == nil && len(kb) != 32 {
		err = fmt.Errorf("the key is %d bytes, want 32", len(kb))
	}
	var key registry.Key
	if err == nil {
		key, err = registry.NewKey(kb, false)
	}
	if err != nil {
		e.errorf("journal verify: %s: %v", keyPath, err)
		return key, journal.VerifyOptions{}, exitInvalid
	}
	var anchors journal.VerifyOptions
	w, err := workspace.ForJournal(dir)
	if err != nil {
		fmt.Fprintf(e.stderr, "note: %v: no kept head or checkpoint key to compare with\n", err)
		return key, anchors, exitOK
	}
	anchors.HeadPath = w.HeadPath()
	if pub, err := journal.ReadPublicKey(w.CheckpointKeyPath()); err == nil {
		anchors.PublicKey = pub
	} else if !errors.Is(err, fs.ErrNotExist) {
		e.errorf("journal verify: the checkpoint key: %v", err)
		return key, anchors, exitInvalid
	}
	return key, anchors, exitOK
}

// printVerifyReport prints breaks, notices and what the checkpoints
// prove, and returns the exit code.
func printVerifyReport(dir string, r journal.Report, e *env) int {
	for _, b := range r.Breaks {
		fmt.Fprintln(e.stdout, termtext.Clean(b.String()))
	}
	for _, n := range r.Notices {
		fmt.Fprintln(e.stdout, "note: "+termtext.Clean(n))
	}
	cp := r.Checkpoints
	switch {
	case cp.Count == 0:
		fmt.Fprintln(e.stdout, "checkpoints: none")
	case cp.KeyChecked:
		fmt.Fprintf(e.stdout, "checkpoints: %d, %d verified under the public key; proven up to leases seq %d, audit seq %d; %d line(s) after them unsigned\n",
			cp.Count, cp.Verified, cp.LeasesSeq, cp.AuditSeq, cp.Uncovered)
	default:
		fmt.Fprintf(e.stdout, "checkpoints: %d, heads compared but signatures not checked (no public key); %d line(s) after the last\n", cp.Count, cp.Uncovered)
	}
	if !r.OK() {
		e.errorf("journal verify: %s: %d break(s)", dir, len(r.Breaks))
		return exitInvalid
	}
	parts := make([]string, 0, len(r.Files))
	for _, f := range r.Files {
		switch {
		case f.Missing:
			parts = append(parts, f.File+": not created yet")
		case f.Lines == 0:
			parts = append(parts, f.File+": empty")
		default:
			parts = append(parts, fmt.Sprintf("%s: %d lines, seq 1–%d", f.File, f.Lines, f.LastSeq))
		}
	}
	what := "ok"
	if !r.MACsChecked {
		what = "ok without macs (public key only)"
	}
	fmt.Fprintf(e.stdout, "journal %s %s (%s)\n", dir, what, strings.Join(parts, "; "))
	return exitOK
}

// runJournalPubkey prints the public half of the workspace's checkpoint
// key: what a third party needs for 'journal verify --pubkey'.
func runJournalPubkey(args []string, e *env) int {
	flags := flag.NewFlagSet("journal pubkey", flag.ContinueOnError)
	ws := workspaceFlag(flags)
	pos, ok := parseFlags(flags, args, e)
	if !ok || len(pos) > 1 {
		fmt.Fprintln(e.stderr, "usage: leasedeck journal pubkey [DIR]")
		return exitUsage
	}
	dir, ok := journalDir(pos, "pubkey", *ws, e)
	if !ok {
		return exitInvalid
	}
	w, err := workspace.ForJournal(dir)
	if err != nil {
		e.errorf("journal pubkey: %v", err)
		return exitInvalid
	}
	pub, err := journal.ReadPublicKey(w.CheckpointKeyPath())
	if errors.Is(err, fs.ErrNotExist) {
		e.errorf("journal pubkey: no checkpoint key yet at %s: the registry creates it on its first start", w.CheckpointKeyPath())
		return exitInvalid
	}
	if err != nil {
		e.errorf("journal pubkey: %v", err)
		return exitInvalid
	}
	fmt.Fprintln(e.stdout, journal.PublicKeyText(pub))
	return exitOK
}

// journalKeyPath is the deployment key of the workspace whose journal is
// dir: in the workspace's state directory. Only a workspace that has not
// been migrated yet (no key there) is verified with the key beside the
// journal, and the note says so.
func journalKeyPath(dir string) (path, note string) {
	legacy := filepath.Join(dir, "..", "key")
	w, err := workspace.ForJournal(dir)
	if err != nil {
		return legacy, ""
	}
	if _, err := os.Stat(w.KeyPath()); err == nil {
		return w.KeyPath(), ""
	}
	if _, err := os.Stat(legacy); err == nil {
		return legacy, "the key is read from the workspace (" + legacy + "): this workspace has not moved its key to " + w.StateDir() + " yet; start its registry once"
	}
	return w.KeyPath(), ""
}

func runJournalTail(args []string, e *env) int {
	fs := flag.NewFlagSet("journal tail", flag.ContinueOnError)
	follow := fs.Bool("follow", false, "keep printing new lines until interrupted")
	fs.BoolVar(follow, "f", false, "short for --follow")
	asJSON := fs.Bool("json", false, "print the raw journal lines")
	n := fs.Int("n", 20, "print the last N records of both files, merged by time (0: all)")
	ws := workspaceFlag(fs)
	pos, ok := parseFlags(fs, args, e)
	if !ok || len(pos) > 1 || *n < 0 {
		fmt.Fprintln(e.stderr, "usage: leasedeck journal tail [--follow] [--json] [-n N] [DIR]")
		return exitUsage
	}
	dir, ok := journalDir(pos, "tail", *ws, e)
	if !ok {
		return exitInvalid
	}
	out := bufio.NewWriter(e.stdout)
	defer out.Flush()
	// The two files are read by two goroutines, which may warn at once.
	var mu sync.Mutex
	print := func(k journal.Kind, l *journal.Line) {
		mu.Lock()
		defer mu.Unlock()
		if *asJSON {
			out.Write(l.Raw)
		} else {
			out.WriteString(record.Describe(k, l))
		}
		out.WriteByte('\n')
	}
	warn := func(p *journal.LineError) {
		mu.Lock()
		defer mu.Unlock()
		out.Flush()
		e.errorf("journal tail: %s", termtext.Clean(p.Error()))
	}

	next, err := printLast(dir, *n, print, warn)
	if err != nil {
		out.Flush()
		e.errorf("journal tail: %v", err)
		return exitInvalid
	}
	if !*follow {
		return exitOK
	}
	out.Flush()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	batches := make(chan journal.Batch, 16)
	tailErr := make(chan error, 1)
	go func() { tailErr <- journal.Tail(ctx, dir, journal.TailOptions{From: next}, batches) }()
	for {
		select {
		case b := <-batches:
			if b.Reset != "" {
				out.Flush()
				e.errorf("journal tail: %s was %s; reading it from the start", filepath.Base(b.Path), b.Reset)
			}
			for i := range b.Lines {
				print(b.Kind, &b.Lines[i])
			}
			for _, p := range b.Problems {
				warn(p)
			}
			for _, br := range b.Breaks {
				out.Flush()
				e.errorf("journal tail: %s", termtext.Clean(br.String()))
			}
			out.Flush()
		case err := <-tailErr:
			out.Flush()
			if err != nil && !errors.Is(err, context.Canceled) {
				e.errorf("journal tail: %v", err)
				return exitInvalid
			}
			return exitOK
		}
	}
}

// tailEntry is one line for the merged listing; Raw is copied because the
// reader recycles its buffers.
type tailEntry struct {
	kind journal.Kind
	line journal.Line
	at   time.Time
}

// readEntries streams one file's good lines from an offset into ch (closed
// at the end), reporting bad lines through warn, and returns where the
// file ends.
func readEntries(path string, k journal.Kind, from int64, ch chan<- tailEntry, warn func(*journal.LineError)) (int64, error) {
	defer close(ch)
	end, err := journal.Scan(path, from, func(l *journal.Line) error {
		at, _ := l.Time()
		c := *l
		c.Raw = append([]byte(nil), l.Raw...)
		ch <- tailEntry{kind: k, line: c, at: at}
		return nil
	})
	var re *journal.ReadError
	switch {
	case errors.As(err, &re):
		for _, p := range re.Problems {
			warn(p)
		}
		err = nil
	case errors.Is(err, fs.ErrNotExist):
		err = nil // not created yet
	}
	return end, err
}

// printLast prints the last n records of both files (all of them when n
// is 0) merged by time, and returns where each file ends, for --follow.
// The files are read side by side and merged as they stream, so memory
// does not grow with the journal; with n > 0 each file is entered at its
// own last n lines, so a large journal is not read whole.
func printLast(dir string, n int, print func(journal.Kind, *journal.Line), warn func(*journal.LineError)) (map[journal.Kind]int64, error) {
	var chans [2]chan tailEntry
	var ends [2]int64
	var errs [2]error
	done := make(chan struct{}, 2)
	for _, k := range journal.Kinds {
		path := filepath.Join(dir, k.FileName())
		from := int64(0)
		if n > 0 {
			var err error
			if from, err = lastLinesOffset(path, n); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
		chans[k] = make(chan tailEntry, 256)
		go func() {
			ends[k], errs[k] = readEntries(path, k, from, chans[k], warn)
			done <- struct{}{}
		}()
	}
	// Merge the two streams by time; at the same instant the lease line
	// comes first. With n > 0, keep only the last n.
	var ring []tailEntry
	emit := func(t tailEntry) {
		if n == 0 {
			print(t.kind, &t.line)
			return
		}
		ring = append(ring, t)
		if len(ring) > 2*n {
			ring = append(ring[:0], ring[len(ring)-n:]...)
		}
	}
	var heads [2]*tailEntry
	open := [2]bool{true, true}
	for {
		for _, k := range journal.Kinds {
			if heads[k] == nil && open[k] {
				if t, ok := <-chans[k]; ok {
					heads[k] = &t
				} else {
					open[k] = false
				}
			}
		}
		var pick *tailEntry
		var from journal.Kind
		for _, k := range journal.Kinds {
			if h := heads[k]; h != nil && (pick == nil || h.at.Before(pick.at)) {
				pick, from = h, k
			}
		}
		if pick == nil {
			break
		}
		heads[from] = nil
		emit(*pick)
	}
	<-done
	<-done
	if len(ring) > n {
		ring = ring[len(ring)-n:]
	}
	for i := range ring {
		print(ring[i].kind, &ring[i].line)
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return map[journal.Kind]int64{journal.Leases: ends[journal.Leases], journal.Audit: ends[journal.Audit]}, nil
}

// lastLinesOffset finds where the last n complete lines of a file begin,
// reading backwards from the end in blocks.
func lastLinesOffset(path string, n int) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	const block = 64 << 10
	buf := make([]byte, block)
	seen, ended := 0, false
	for pos := st.Size(); pos > 0; {
		size := int64(block)
		if pos < size {
			size = pos
		}
		pos -= size
		if _, err := f.ReadAt(buf[:size], pos); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		for i := size - 1; i >= 0; i-- {
			if buf[i] != '\n' {
				continue
			}
			// The last newline ends the last complete line (anything after
			// it is a partial line); each one before it starts a line.
			if !ended {
				ended = true
				continue
			}
			if seen++; seen == n {
				return pos + i + 1, nil
			}
		}
	}
	return 0, nil
}
