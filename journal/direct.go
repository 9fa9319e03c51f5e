package journal

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/leasedeck/leasedeck/schemas"
)

// Reading a million-line journal into the generic tree (a map per object,
// a boxed value per member) and then typing that tree was most of a
// replay's and a verify's CPU. The direct decoder reads an audit line of
// the shape leasedeck writes straight into AuditFields, in one pass over
// its bytes, checking the audit schema's rules on the way.
//
// Like the fast schema check it is one-sided by construction: it answers
// "this line is certainly a JSON object that the generic path accepts in
// full — well-formed, schema-valid, with a good seq and prev — and these
// are its members", or "ask the generic path". Whatever it declines is
// read exactly as before, so it cannot make a reader accept anything the
// generic path refuses, nor refuse anything, nor word a refusal
// differently. It declines, among others: whitespace between tokens, any
// escape in a string, a control character, invalid UTF-8, a duplicate
// member, a member it does not know, a value of another type than the
// schema's, a null, a nested array or object where the record has
// scalars, a number outside JSON's grammar, a missing or malformed
// seq/prev/mac, and the journal's own lines (leasedeck.journal.*, which
// the checkpoint and notice checks read from the generic tree).
// direct_test.go holds it to that against the generic path, on every
// corpus line and on mutated and fuzzed ones.

// AuditFields is an audit event decoded directly from its line: the
// members audit-event.schema.json names, with actor and details as the
// flat lists of scalars they are, in the line's order. seq, prev and mac
// are not part of it. A string member that is absent and one that holds
// "" read the same, as in record.Audit.
type AuditFields struct {
	SchemaVersion, Timestamp, EventID, EventType  string
	SessionID, RequestID, SpecSlug, TaskID, Phase string
	Summary, Reasoning, RequestHash, Outcome      string

	HasActor   bool
	Actor      []Scalar // every value a string
	HasDetails bool
	Details    []Scalar

	// Room for the usual actor and details, so that a line's lists need
	// no allocation of their own.
	actorBuf   [4]Scalar
	detailsBuf [12]Scalar
}

// ScalarKind says which JSON type a Scalar holds.
type ScalarKind uint8

const (
	ScalarString ScalarKind = iota + 1
	ScalarNumber            // Text is the number's literal, as json.Number keeps it
	ScalarBool
)

// Scalar is one member of a flat object.
type Scalar struct {
	Name string
	Kind ScalarKind
	Text string // the string, or the number's literal
	Bool bool
}

// Value is the scalar as the generic tree holds it: a string, a
// json.Number or a bool.
func (s *Scalar) Value() any {
	switch s.Kind {
	case ScalarNumber:
		return json.Number(s.Text)
	case ScalarBool:
		return s.Bool
	}
	return s.Text
}

// str returns a top-level string member by name, as Line.Str does from
// the generic tree.
func (f *AuditFields) str(name string) string {
	switch name {
	case "schema_version":
		return f.SchemaVersion
	case "timestamp":
		return f.Timestamp
	case "event_id":
		return f.EventID
	case "event_type":
		return f.EventType
	case "session_id":
		return f.SessionID
	case "request_id":
		return f.RequestID
	case "spec_slug":
		return f.SpecSlug
	case "task_id":
		return f.TaskID
	case "phase":
		return f.Phase
	case "summary":
		return f.Summary
	case "reasoning":
		return f.Reasoning
	case "request_hash":
		return f.RequestHash
	case "outcome":
		return f.Outcome
	}
	return ""
}

// DecodeAudit decodes one audit line directly, or reports ok=false when
// the line must be read through the generic tree (schemas.ParseJSON and
// the schema). It is what readers with Options.DecodeAudit or
// VerifyOptions.DecodeAudit do on every audit line.
func DecodeAudit(raw []byte) (*AuditFields, bool) {
	f := new(AuditFields)
	var d auditDecoder
	if _, ok := d.decode(raw, f); !ok {
		return nil, false
	}
	return f, true
}

// directLine is what the decoder reads of the journal's own members.
type directLine struct {
	seq  uint64
	prev [32]byte
	mac  []byte // the mac member's text, compared with the line's end
}

// auditDecoder reads lines one at a time; one per worker, for its
// table of repeated words.
type auditDecoder struct {
	raw   []byte
	pos   int
	words [maxWords]string
}

const (
	// maxDirectMembers bounds a details or actor object read directly
	// (duplicates are found by comparing every pair); a larger one is
	// read through the generic tree.
	maxDirectMembers = 64
	// Short words (event types, outcomes, tool and client names, member
	// names) repeat on every line: a bounded table per decoder keeps one
	// copy of each instead of allocating them again on each line.
	maxWordLen = 40
	maxWords   = 512
)

// Bits of the top-level members, to find duplicates and missing ones.
const (
	mSchemaVersion uint32 = 1 << iota
	mTimestamp
	mEventID
	mEventType
	mSessionID
	mRequestID
	mSpecSlug
	mTaskID
	mPhase
	mActor
	mSummary
	mReasoning
	mRequestHash
	mOutcome
	mDetails
	mSeq
	mPrev
	mMAC

	mRequired = mSchemaVersion | mTimestamp | mEventType | mSeq | mPrev | mMAC
)

func (d *auditDecoder) decode(raw []byte, f *AuditFields) (directLine, bool) {
	var out directLine
	d.raw, d.pos = raw, 0
	if !d.take('{') {
		return out, false
	}
	var seen uint32
	for {
		name, ok := d.name()
		if !ok {
			return out, false
		}
		bit, ok := d.member(name, f, &out)
		if !ok || seen&bit != 0 {
			return out, false
		}
		seen |= bit
		if d.take(',') {
			continue
		}
		if !d.take('}') || d.pos != len(raw) {
			return out, false
		}
		break
	}
	if seen&mRequired != mRequired || strings.HasPrefix(f.EventType, "leasedeck.journal.") {
		return out, false
	}
	return out, true
}

// member reads the value of one top-level member and checks it against
// the rule fastAuditEvent applies to it (textMember for the strings).
func (d *auditDecoder) member(name []byte, f *AuditFields, out *directLine) (uint32, bool) {
	switch string(name) {
	case "actor":
		f.HasActor = true
		return mActor, d.actor(f)
	case "details":
		f.HasDetails = true
		return mDetails, d.details(f)
	case "seq":
		return mSeq, d.seq(out)
	case "prev":
		b, ok := d.str()
		return mPrev, ok && len(b) == 64 && isLowerHex(b) && decodeHex(out.prev[:], b)
	case "mac":
		b, ok := d.str()
		out.mac = b
		return mMAC, ok
	}
	return d.textMember(name, f)
}

func (d *auditDecoder) textMember(name []byte, f *AuditFields) (uint32, bool) {
	switch string(name) {
	case "schema_version":
		return mSchemaVersion, d.word(&f.SchemaVersion) && isSchemaVersion(f.SchemaVersion)
	case "timestamp":
		return mTimestamp, d.text(&f.Timestamp) && isTimestamp(f.Timestamp)
	case "event_id":
		return mEventID, d.text(&f.EventID)
	case "event_type":
		return mEventType, d.word(&f.EventType) && isEventType(f.EventType)
	case "session_id":
		return mSessionID, d.text(&f.SessionID)
	case "request_id":
		return mRequestID, d.text(&f.RequestID)
	case "spec_slug":
		return mSpecSlug, d.text(&f.SpecSlug)
	case "task_id":
		return mTaskID, d.text(&f.TaskID)
	case "phase":
		return mPhase, d.text(&f.Phase)
	case "summary":
		return mSummary, d.text(&f.Summary) && len(f.Summary) <= 300 && !hasControl(f.Summary)
	case "reasoning":
		return mReasoning, d.text(&f.Reasoning) && len(f.Reasoning) <= 500 && !hasControl(f.Reasoning)
	case "request_hash":
		return mRequestHash, d.text(&f.RequestHash) && isSHA256(f.RequestHash)
	case "outcome":
		ok := d.word(&f.Outcome)
		return mOutcome, ok && (f.Outcome == "success" || f.Outcome == "failure" || f.Outcome == "partial")
	}
	return 0, false // a member the decoder does not know: the generic path's
}

func decodeHex(dst, src []byte) bool {
	_, err := hex.Decode(dst, src)
	return err == nil
}

// seq: what parseSeq accepts of a JSON integer literal, 1 to 2^53-1.
func (d *auditDecoder) seq(out *directLine) bool {
	lit, ok := d.number()
	if !ok || !isDigits(string(lit)) {
		return false
	}
	n, err := strconv.ParseUint(string(lit), 10, 64)
	if err != nil || n == 0 || n > schemas.MaxSafeInteger {
		return false
	}
	out.seq = n
	return true
}

// actor: isActor's rules, with every member a string.
func (d *auditDecoder) actor(f *AuditFields) bool {
	f.Actor = f.actorBuf[:0]
	if !d.take('{') {
		return false
	}
	kind := false
	if d.take('}') {
		return false // kind is required
	}
	for {
		name, ok := d.name()
		if !ok {
			return false
		}
		sc := Scalar{Name: d.intern(name), Kind: ScalarString}
		if !d.word(&sc.Text) || !addScalar(&f.Actor, sc) {
			return false
		}
		switch sc.Name {
		case "kind":
			kind = actorKinds[sc.Text]
			if !kind {
				return false
			}
		case "runtime_agent":
			if !runtimeAgents[sc.Text] {
				return false
			}
		}
		if d.take(',') {
			continue
		}
		return d.take('}') && kind
	}
}

// details: isFlatDetails' rules.
func (d *auditDecoder) details(f *AuditFields) bool {
	f.Details = f.detailsBuf[:0]
	if !d.take('{') {
		return false
	}
	if d.take('}') {
		return true
	}
	for {
		name, ok := d.name()
		if !ok {
			return false
		}
		sc := Scalar{Name: d.intern(name)}
		if sensitiveName(sc.Name) || !d.scalar(&sc) || !addScalar(&f.Details, sc) {
			return false
		}
		if d.take(',') {
			continue
		}
		return d.take('}')
	}
}

// scalar reads a details value: a string of at most 200 bytes, a number
// or a boolean.
func (d *auditDecoder) scalar(sc *Scalar) bool {
	if d.pos >= len(d.raw) {
		return false
	}
	switch c := d.raw[d.pos]; {
	case c == '"':
		sc.Kind = ScalarString
		return d.word(&sc.Text) && len(sc.Text) <= 200
	case c == 't':
		sc.Kind, sc.Bool = ScalarBool, true
		return d.literal("true")
	case c == 'f':
		sc.Kind = ScalarBool
		return d.literal("false")
	case c == '-' || isDigit(c):
		lit, ok := d.number()
		sc.Kind, sc.Text = ScalarNumber, d.intern(lit)
		return ok
	}
	return false
}

// addScalar appends sc unless its name is already there (a duplicate
// member, which the generic parser refuses) or the list is full.
func addScalar(list *[]Scalar, sc Scalar) bool {
	if len(*list) >= maxDirectMembers {
		return false
	}
	for i := range *list {
		if (*list)[i].Name == sc.Name {
			return false
		}
	}
	*list = append(*list, sc)
	return true
}

func (d *auditDecoder) take(c byte) bool {
	if d.pos < len(d.raw) && d.raw[d.pos] == c {
		d.pos++
		return true
	}
	return false
}

func (d *auditDecoder) literal(word string) bool {
	if len(d.raw)-d.pos < len(word) || string(d.raw[d.pos:d.pos+len(word)]) != word {
		return false
	}
	d.pos += len(word)
	return true
}

// name reads a member name and the colon after it.
func (d *auditDecoder) name() ([]byte, bool) {
	b, ok := d.str()
	return b, ok && d.take(':')
}

// text reads a string value into dst.
func (d *auditDecoder) text(dst *string) bool {
	b, ok := d.str()
	if ok {
		*dst = string(b)
	}
	return ok
}

// word is text for values that repeat from line to line.
func (d *auditDecoder) word(dst *string) bool {
	b, ok := d.str()
	if ok {
		*dst = d.intern(b)
	}
	return ok
}

// strStop marks the bytes that end the plain run of a string: its closing
// quote, an escape, a control character, and the first byte of a
// multi-byte character (which needs the UTF-8 check).
var strStop = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= 0x80
	}
	return t
}()

// str reads a JSON string with no escape and no control character, whose
// bytes are valid UTF-8, and returns its bytes (which are then its value).
func (d *auditDecoder) str() ([]byte, bool) {
	raw := d.raw
	if d.pos >= len(raw) || raw[d.pos] != '"' {
		return nil, false
	}
	start := d.pos + 1
	ascii := true
	for i := start; i < len(raw); i++ {
		c := raw[i]
		if !strStop[c] {
			continue
		}
		switch {
		case c == '"':
			s := raw[start:i]
			if !ascii && !utf8.Valid(s) {
				return nil, false
			}
			d.pos = i + 1
			return s, true
		case c >= 0x80:
			ascii = false
		default: // an escape or a control character
			return nil, false
		}
	}
	return nil, false
}

// number reads a number in JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *auditDecoder) number() ([]byte, bool) {
	raw, i := d.raw, d.pos
	digits := func() int {
		n := 0
		for i < len(raw) && isDigit(raw[i]) {
			i++
			n++
		}
		return n
	}
	if i < len(raw) && raw[i] == '-' {
		i++
	}
	switch {
	case i < len(raw) && raw[i] == '0':
		i++
	case digits() == 0:
		return nil, false
	}
	if i < len(raw) && raw[i] == '.' {
		i++
		if digits() == 0 {
			return nil, false
		}
	}
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	lit := raw[d.pos:i]
	d.pos = i
	return lit, true
}

// intern returns b as a string, from the decoder's table when it is a
// short word already seen there. Identifiers, hashes and times (long, or
// carrying digits) are never put in the table, so they cannot crowd it.
// The table is direct-mapped by a hash of the bytes: a lookup is one
// comparison, and a word that collides with another only costs an
// allocation.
func (d *auditDecoder) intern(b []byte) string {
	if len(b) > maxWordLen || (len(b) > 4 && hasDigit(b)) {
		return string(b)
	}
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &d.words[h%uint32(len(d.words))]
	if *slot != string(b) {
		*slot = string(b)
	}
	return *slot
}

func hasDigit(b []byte) bool {
	for _, c := range b {
		if isDigit(c) {
			return true
		}
	}
	return false
}
