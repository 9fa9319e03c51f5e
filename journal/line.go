package journal

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"strconv"
	"strings"
	"time"

	"github.com/leasedeck/leasedeck/schemas"
)

// ZeroHash is prev on the first line of a file.
const ZeroHash = "0000000000000000000000000000000000000000000000000000000000000000"

// reservedMembers are written by the journal itself; a record that already
// carries one would either be overwritten or make the line ambiguous.
var reservedMembers = [...]string{"seq", "prev", "mac"}

const (
	macMember = `,"mac":"`
	// macTrailerLen is the length of `,"mac":"<64 hex>"}`: the mac is always
	// the last member, so it sits at a fixed distance from the line's end.
	macTrailerLen = len(macMember) + 64 + len(`"}`)
)

// Line is one complete line of a journal file.
type Line struct {
	// Raw is the line's exact bytes, without its newline. Hashes and macs
	// are computed over these bytes, so keep them if you need to prove
	// anything later.
	Raw []byte
	// Value is the parsed object: every member, including ones this version
	// does not know (a newer minor writer's additions) and seq/prev/mac.
	// Numbers are json.Number, as schemas.ParseJSON returns them. It is
	// nil on a line decoded directly into Audit.
	Value map[string]any
	// Audit, for a reader that asked for it (Options.DecodeAudit,
	// VerifyOptions.DecodeAudit), is an audit line of the usual shape
	// decoded directly, instead of Value; like Raw, it is recycled after
	// the callback returns (what it holds may be kept).
	Audit *AuditFields
	// Seq is the line's seq member, or 0 when it has none.
	Seq uint64
	// Number is the 1-based line number within the file.
	Number int
	// Offset is the byte offset of the line's first byte.
	Offset int64
	// Prepared is what VerifyOptions.Prepare made of the line, in one of
	// the scan's workers; nil without a Prepare.
	Prepared any
}

// End is the offset just after the line's newline: where reading resumes.
func (l *Line) End() int64 { return l.Offset + int64(len(l.Raw)) + 1 }

// Hash is the SHA-256 hex of the line's bytes: the next line's prev.
func (l *Line) Hash() string { return schemas.SHA256Hex(l.Raw) }

// Str returns a top-level string member, or "".
func (l *Line) Str(name string) string {
	if l.Audit != nil {
		return l.Audit.str(name)
	}
	s, _ := l.Value[name].(string)
	return s
}

// Time is when the record says it happened: a lease record's at, an audit
// event's timestamp.
func (l *Line) Time() (time.Time, bool) {
	s := l.Str("at")
	if s == "" {
		s = l.Str("timestamp")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// splitMAC returns the bytes the mac covers and the mac's hex digits, or
// ok=false when the line does not end with a mac member. Because the mac is
// the last member, the last `,"mac":"` of a well-formed line is at a fixed
// distance from its end; a record member named mac inside a nested object
// is never mistaken for it.
func splitMAC(raw []byte) (signed, macHex []byte, ok bool) {
	if len(raw) < macTrailerLen+1 {
		return nil, nil, false
	}
	i := len(raw) - macTrailerLen
	if string(raw[i:i+len(macMember)]) != macMember || string(raw[len(raw)-2:]) != `"}` {
		return nil, nil, false
	}
	return raw[:i], raw[i+len(macMember) : len(raw)-2], true
}

// appendLine appends one complete line (with its newline) to dst: body is
// the record's canonical bytes, an object without seq/prev/mac. It returns
// the extended buffer and the SHA-256 of the new line.
func appendLine(dst, body []byte, seq uint64, prev *[32]byte, mac hash.Hash) ([]byte, [32]byte) {
	start := len(dst)
	if len(body) > 2 { // "{...}": continue after the last member
		dst = append(dst, body[:len(body)-1]...)
		dst = append(dst, `,"seq":`...)
	} else { // "{}" has no member to follow
		dst = append(dst, `{"seq":`...)
	}
	dst = strconv.AppendUint(dst, seq, 10)
	dst = append(dst, `,"prev":"`...)
	dst = hex.AppendEncode(dst, prev[:])
	dst = append(dst, '"')
	mac.Reset()
	mac.Write(dst[start:])
	var sum [32]byte
	dst = append(dst, macMember...)
	dst = hex.AppendEncode(dst, mac.Sum(sum[:0]))
	dst = append(dst, `"}`...)
	h := sha256.Sum256(dst[start:])
	return append(dst, '\n'), h
}

// macState is what a reader found of a line's mac.
type macState uint8

const (
	macUnchecked macState = iota // no key given
	macOK
	macMissing // no well-formed mac member at the end of the line
	macBad     // present but wrong: altered, or written under another key
)

// analysed is one line with everything that can be learnt from it alone.
// Workers fill it in parallel; chain rules that relate lines are applied
// afterwards, in order, by chainChecker.
type analysed struct {
	Line
	hash      [32]byte
	jsonErr   error // not JSON, or JSON but not an object
	seqErr    string
	prev      [32]byte
	prevErr   string
	mac       macState
	schema    []schemas.Error
	schemaErr error       // the validator itself failed (not the line)
	fields    AuditFields // what Line.Audit points to, when set
}

// analyseOpts says which checks a reader wants.
type analyseOpts struct {
	kind     Kind
	key      []byte // nil: macs are not checked
	validate bool
	hash     bool
	// prepare, when set, runs in the worker after the line's own checks,
	// on every line that is a JSON object (see VerifyOptions.Prepare).
	prepare func(Kind, *Line) any
	// decodeAudit reads audit lines of the usual shape directly into
	// Line.Audit (direct.go), the others into Line.Value as before.
	decodeAudit bool
}

// analyser holds per-worker scratch state, so a hot loop over a million
// lines does not allocate an HMAC per line.
type analyser struct {
	opts   analyseOpts
	mac    hash.Hash
	direct *auditDecoder // nil unless audit lines are decoded directly
}

func newAnalyser(o analyseOpts) *analyser {
	a := &analyser{opts: o}
	if o.key != nil {
		a.mac = hmac.New(sha256.New, o.key)
	}
	if o.decodeAudit && o.kind == Audit {
		a.direct = &auditDecoder{}
	}
	return a
}

func (an *analyser) analyse(a *analysed) {
	if an.opts.hash {
		a.hash = sha256.Sum256(a.Raw)
	}
	if an.direct != nil && an.analyseDirect(a) {
		return
	}
	v, err := schemas.ParseJSON(a.Raw)
	if err != nil {
		a.jsonErr = err
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		a.jsonErr = fmt.Errorf("a JSON %s, not an object", jsonTypeName(v))
		return
	}
	a.Value = m
	a.Seq, a.seqErr = parseSeq(m["seq"])
	a.prevErr = parseHash(m["prev"], &a.prev)
	if an.mac != nil {
		a.mac = an.checkMAC(a.Raw, m)
	}
	if an.opts.validate {
		a.schema, a.schemaErr = validateValue(an.opts.kind, m)
	}
	if an.opts.prepare != nil {
		a.Prepared = an.opts.prepare(an.opts.kind, &a.Line)
	}
}

// analyseDirect is analyse for a line the direct decoder takes: the same
// findings, without the generic tree. It returns false, having changed
// nothing, for a line it leaves to the generic path.
func (an *analyser) analyseDirect(a *analysed) bool {
	d, ok := an.direct.decode(a.Raw, &a.fields)
	if !ok {
		a.fields = AuditFields{}
		return false
	}
	a.Audit = &a.fields
	a.Seq, a.prev = d.seq, d.prev
	if an.mac != nil {
		signed, macHex, ok := splitMAC(a.Raw)
		if !ok || string(d.mac) != string(macHex) {
			a.mac = macMissing
		} else {
			a.mac = an.macOf(signed, macHex)
		}
	}
	if an.opts.prepare != nil {
		a.Prepared = an.opts.prepare(an.opts.kind, &a.Line)
	}
	return true
}

func (an *analyser) checkMAC(raw []byte, m map[string]any) macState {
	signed, macHex, ok := splitMAC(raw)
	if !ok {
		return macMissing
	}
	if s, _ := m["mac"].(string); s != string(macHex) {
		return macMissing
	}
	return an.macOf(signed, macHex)
}

// macOf checks the mac hex digits at the end of a line against the bytes
// they sign.
func (an *analyser) macOf(signed, macHex []byte) macState {
	if !isLowerHex(macHex) {
		return macMissing
	}
	var want [32]byte
	if _, err := hex.Decode(want[:], macHex); err != nil {
		return macMissing
	}
	an.mac.Reset()
	an.mac.Write(signed)
	var sum [32]byte
	if !hmac.Equal(an.mac.Sum(sum[:0]), want[:]) {
		return macBad
	}
	return macOK
}

func parseSeq(v any) (uint64, string) {
	if v == nil {
		return 0, "no seq member"
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Sprintf("seq is a %s, not an integer", jsonTypeName(v))
	}
	seq, err := strconv.ParseUint(string(n), 10, 64)
	if err != nil || seq == 0 || seq > schemas.MaxSafeInteger {
		return 0, fmt.Sprintf("seq %s is not a positive integer", n)
	}
	return seq, ""
}

func parseHash(v any, dst *[32]byte) string {
	if v == nil {
		return "no prev member"
	}
	s, ok := v.(string)
	if !ok || len(s) != 64 || !isLowerHex([]byte(s)) {
		return "prev is not 64 lower-case hex digits"
	}
	hex.Decode(dst[:], []byte(s))
	return ""
}

// lowerHex marks the bytes 0-9 and a-f. A table, because every line's
// prev and mac go through this and the branches cost more than the hashing.
var lowerHex = func() (t [256]bool) {
	for _, c := range "0123456789abcdef" {
		t[c] = true
	}
	return t
}()

func isLowerHex(b []byte) bool {
	ok := true
	for _, c := range b {
		ok = ok && lowerHex[c]
	}
	return ok
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// schemaSummary renders schema errors on one line, for break reasons.
func schemaSummary(errs []schemas.Error) string {
	const max = 3
	parts := make([]string, 0, max+1)
	for i, e := range errs {
		if i == max {
			parts = append(parts, fmt.Sprintf("and %d more", len(errs)-max))
			break
		}
		parts = append(parts, e.String())
	}
	return strings.Join(parts, "; ")
}

// hasReserved reports the first journal-owned member a record carries.
func hasReserved(record map[string]any) (string, bool) {
	for _, name := range reservedMembers {
		if _, ok := record[name]; ok {
			return name, true
		}
	}
	return "", false
}

// oneLine keeps a quoted excerpt of raw bytes short and free of control
// characters, for messages about lines that are not JSON.
func oneLine(b []byte, max int) string {
	if len(b) > max {
		b = b[:max]
	}
	return strconv.Quote(string(bytes.ToValidUTF8(b, []byte("?"))))
}
