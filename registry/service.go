package registry

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/leasedeck/leasedeck/approvals"
	"github.com/leasedeck/leasedeck/journal"
	"github.com/leasedeck/leasedeck/registry/record"
)

// Config is what a registry service needs from its workspace.
type Config struct {
	Workspace  string // absolute workspace root; tool paths are relative to it
	JournalDir string // .leasedeck/journal
	LockPath   string // .leasedeck/registry.lock
	// HeadPath and CheckpointKeyPath are the journal's integrity anchors
	// in the per-user state directory (journal.Options explains them).
	HeadPath          string
	CheckpointKeyPath string
	Key               Key       // the deployment key (signs leases, macs journal lines)
	Root              *Manifest // the root policy every parentless manifest narrows against
	DefaultLifetime   time.Duration
	ApprovalTimeout   time.Duration
	// Calls are the rules every call is held to beyond its lease
	// (protected writes, credentials held for a human).
	Calls CallRules
	// MaxPendingApprovals caps the approval requests waiting at once under
	// one lease (default DefaultMaxPendingApprovals).
	MaxPendingApprovals int
	// MaxHeldCalls caps the calls over the socket waiting for a human at
	// once across every lease tree (default HeldCallsFor(0)); each tree has
	// MaxHeldPerTree. MaxHeldLocal caps those over Local connections, the
	// HTTP hooks' (default DefaultMaxHeldLocal).
	MaxHeldCalls int
	MaxHeldLocal int
	SessionID    string           // issuer_session_id; default: a fresh id per start
	Now          func() time.Time // default time.Now
	// Policy, when set, is the whole policy (root, timeouts, mode, the
	// agents' manifests, hashes) and overrides Root and the timeouts; its
	// load is journaled at start (see policy.go).
	Policy *Policy
	// PolicySource reads the policy again, for an operator's reload.
	PolicySource func() (Policy, error)
	// HandshakeKey is the secret the registry proves itself with to a
	// hook (see Hello).
	HandshakeKey []byte
	// SnapshotDir, when set, is where snapshots of the fold are kept
	// (snapshot.go): in the per-user state directory, never where an agent
	// writes. SnapshotEvery is the number of journal lines between them
	// (default DefaultSnapshotEvery; negative: only at start and Close
	// are none written either); SnapshotInterval the longest time between
	// two while lines are written (default DefaultSnapshotInterval).
	SnapshotDir      string
	SnapshotEvery    int
	SnapshotInterval time.Duration
}

// Service is the long-running registry: the only thing that issues
// leases, decides tool calls, spends budgets, revokes and holds gated
// calls until a human decides. Every change is appended to the journal
// (and fsync'd) first, and only then applied and answered.
type Service struct {
	cfg    Config
	w      *journal.Writer
	issuer Issuer
	book   *approvals.Book
	ver    Verifier

	// foldGate is held shared by every append from its write to its fold,
	// and exclusively while a snapshot copies the state, so that the copy
	// is the fold of exactly the lines before the journal's position.
	foldGate sync.RWMutex
	mu       sync.Mutex
	// newSessions is held while a session the registry has not seen is
	// given its lease, from the second look-up to the journaled start, so
	// that two hooks beginning the same session at once (Copilot CLI runs
	// a session's hooks without waiting for one another) issue one lease.
	newSessions sync.Mutex
	st          *State
	// In-flight reservations, so that concurrent decisions made while a
	// line is being written cannot together overspend a budget or a
	// fan-out: steps reserved under each lease (charged up the chain) and
	// children being issued under each parent.
	inflightSteps    map[string]float64
	inflightChildren map[string]int
	// closing holds the leases whose close is being written: decided
	// under mu, written outside it, so a second closer (the agent
	// finishing, a revoke, a cascade, the sweeper) must see the first one
	// before its line is folded, or the journal gets a close for a closed
	// lease, which does not fold (closeclaim.go).
	closing map[string]bool
	asks    askCounter // approval requests waiting under each lease

	runs runBook // confined runs (confined.go)
	// clients are the client processes watched for sessions that get no
	// session end (clientwatch.go).
	clients clientWatch

	foldErr  error // set when replay found records that do not fold
	stop     chan struct{}
	done     chan struct{}
	kickCh   chan struct{} // wakes the sweeper when a new deadline appears
	sweepAt  time.Time     // when the sleeping sweeper wakes (zero: never); under mu
	closeErr error
	once     sync.Once
	policyAt time.Time // when the policy in force was loaded; under mu

	snaps *snapshotter // nil without Config.SnapshotDir
	start StartInfo
}

// Errors a caller can tell apart (the socket maps them to codes).
var (
	ErrUnknownLease = errors.New("unknown lease")
	ErrNotAllowed   = errors.New("not allowed")
	ErrClosed       = errors.New("lease already closed")
)

// Open replays the journal, takes the workspace lock (through the journal
// writer), expires what has expired and orphaned approval requests, and
// starts the sweeper that expires leases and approvals on time.
func Open(cfg Config) (*Service, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Policy != nil {
		if err := cfg.Policy.check(); err != nil {
			return nil, err
		}
		cfg.startPolicy()
	}
	if cfg.SessionID == "" {
		cfg.SessionID = "leasedeck-" + NewLeaseID()[:8]
	}
	if cfg.DefaultLifetime <= 0 {
		cfg.DefaultLifetime = 8 * time.Hour
	}
	if cfg.ApprovalTimeout <= 0 {
		cfg.ApprovalTimeout = 5 * time.Minute
	}
	s := &Service{
		cfg:              cfg,
		issuer:           Issuer{Key: cfg.Key, SessionID: cfg.SessionID, DefaultLifetime: cfg.DefaultLifetime},
		book:             approvals.New(),
		st:               NewState(),
		inflightSteps:    map[string]float64{},
		inflightChildren: map[string]int{},
		closing:          map[string]bool{},
		stop:             make(chan struct{}),
		done:             make(chan struct{}),
		kickCh:           make(chan struct{}, 1),
		snaps:            newSnapshotter(cfg),
	}
	w, replayErr, err := s.openJournal()
	if err != nil {
		return nil, err
	}
	s.w = w
	if len(replayErr) > 0 {
		// A record does not fold (after a break, lines that depend on a
		// damaged one cannot): keep the evidence, serve it read-only, and
		// refuse to add to it.
		more := ""
		if len(replayErr) > 3 {
			more = fmt.Sprintf(" (and %d more)", len(replayErr)-3)
			replayErr = replayErr[:3]
		}
		s.foldErr = fmt.Errorf("%w: %s%s", ErrJournalUnfolded, strings.Join(replayErr, "; "), more)
	}
	if s.Health() == nil {
		s.appendAudit(record.NewAudit(EventRegistryStarted, cfg.Now(), "registry started", record.Details{IssuerSession: cfg.SessionID}))
		s.journalPolicy(cfg.Policy, "start")
		s.policyAt = cfg.Now()
		s.expireOrphans()
		s.sweep()
		s.startSnapshots()
	} else {
		s.snaps = nil // a journal that cannot be served is not snapshotted
	}
	go s.sweeper()
	return s, nil
}

// openJournal opens the journal as its writer and folds it into s.st and
// s.book: from the newest snapshot that matches it, or from its start.
// It returns what did not fold.
func (s *Service) openJournal() (*journal.Writer, []string, error) {
	var replayErr []string
	cfg := s.cfg
	w, err := journal.Open(cfg.JournalDir, cfg.Key.Bytes(), journal.Options{
		LockPath:       cfg.LockPath,
		HeadPath:       cfg.HeadPath,
		SigningKeyPath: cfg.CheckpointKeyPath,
		Now:            cfg.Now,
		Resume:         s.loadSnapshot(),
		DecodeAudit:    true,
		Replay: func(k journal.Kind, jl *journal.Line) error {
			s.start.Replayed++
			l := record.ParseLine(k, jl)
			l.Offset, l.Seq, l.Located = jl.Offset, jl.Seq, true
			if err := FoldLine(s.st, s.book, &l); err != nil {
				replayErr = append(replayErr, fmt.Sprintf("%s line %d: %v", k, jl.Number, err))
			}
			return nil
		},
	})
	return w, replayErr, err
}

// Close stops the sweeper, answers waiting calls and releases the journal.
func (s *Service) Close() error {
	s.once.Do(func() {
		close(s.stop)
		<-s.done
		s.clients.close()
		s.stopSnapshots()
		s.closeErr = s.w.Close()
	})
	return s.closeErr
}

// Now is the service clock.
func (s *Service) Now() time.Time { return s.cfg.Now() }

// Journal exposes the writer for status reports (head seq, breaks).
func (s *Service) Journal() *journal.Writer { return s.w }

// Health is nil when the service can record decisions; otherwise the
// reason everything is refused (fail closed).
func (s *Service) Health() error {
	if err := s.w.Broken(); err != nil {
		return fmt.Errorf("journal is broken, issuing and gating are refused: %w", err)
	}
	if err := s.w.Err(); err != nil {
		return fmt.Errorf("journal cannot be written, issuing and gating are refused: %w", err)
	}
	if s.foldErr != nil {
		return fmt.Errorf("issuing and gating are refused: %w", s.foldErr)
	}
	return nil
}

func (s *Service) lease(id string) (*LeaseState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.st.Leases[id]
	return l, ok
}
