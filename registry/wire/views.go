package wire

import "time"

// LeaseView is what `leases` lists and the cockpit shows for one lease.
type LeaseView struct {
	ID           string             `json:"lease_id"`
	ParentID     string             `json:"parent_lease_id,omitempty"`
	Status       string             `json:"status"`
	Live         bool               `json:"live"`
	Agent        string             `json:"agent"`
	RuntimeAgent string             `json:"runtime_agent,omitempty"`
	Purpose      string             `json:"purpose"`
	IssuedAt     string             `json:"issued_at,omitempty"`
	ExpiresAt    string             `json:"expires_at,omitempty"`
	ClosedAt     string             `json:"closed_at,omitempty"`
	Reason       string             `json:"reason,omitempty"`
	Refusals     []string           `json:"refusals,omitempty"`
	RevokedBy    string             `json:"revoked_by,omitempty"`
	Generation   int                `json:"generation"`
	Children     int                `json:"children"`
	LiveChildren int                `json:"live_children"`
	Budget       map[string]any     `json:"budget,omitempty"`    // granted
	Remaining    map[string]any     `json:"remaining,omitempty"` // now
	Spent        map[string]float64 `json:"spent"`
	Narrowing    string             `json:"narrowing,omitempty"`
	Lease        map[string]any     `json:"lease,omitempty"`    // the signed lease (lease only)
	Declared     map[string]any     `json:"declared,omitempty"` // (lease only)
	Activity     []GateEvent        `json:"activity,omitempty"` // recent gate decisions (lease only)
	// Confinement: whether the lease's process tree is held in the kernel,
	// and by what; absent outside a confined run.
	Confinement *Confinement `json:"confinement,omitempty"`
	// HistoryError says why a closed lease's history, read back from the
	// journal, is not shown (its lines no longer check).
	HistoryError string `json:"history_error,omitempty"`
}

// GateEvent is one gate decision in a lease's activity.
type GateEvent struct {
	At       time.Time `json:"at"`
	Tool     string    `json:"tool"`
	Decision string    `json:"decision"`
	Reason   string    `json:"reason,omitempty"`
	Summary  string    `json:"summary,omitempty"`
}

// ApprovalView is a pending approval request.
type ApprovalView struct {
	ID        string   `json:"approval_id"`
	LeaseID   string   `json:"lease_id"`
	Client    string   `json:"client,omitempty"`
	Tool      string   `json:"tool"`
	Summary   string   `json:"summary"`
	Reason    string   `json:"reason"`
	Names     []string `json:"names"`
	CreatedAt string   `json:"created_at"`
	Deadline  string   `json:"deadline"`
}
