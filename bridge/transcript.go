package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// Claude Code's hook payloads carry no token usage, but its Stop (and
// SubagentStop) payloads name the JSONL transcript the client writes
// (transcript_path; agent_transcript_path for the subagent's own), whose
// assistant entries hold the API's usage object as the provider reported
// it. TranscriptUsage sums that usage for one turn. Only numbers are kept:
// no content of the transcript is stored or forwarded.
//
// Entry shape (Claude Code 2.1.328, seen through the e2e harness):
//
//	{"type":"user","promptId":P,"isMeta":…,"message":{"role":"user","content":"…"|[…]}}
//	{"type":"assistant","requestId":R,"message":{"id":M,"usage":{"input_tokens":…,
//	  "output_tokens":…,"cache_creation_input_tokens":…,"cache_read_input_tokens":…}}}
//
// plus many other types (attachment, system, api-request-blob, …) that are
// ignored. Tool results come back as "user" entries of the same promptId.
// An assistant message with several content blocks is written once per
// block, each copy with the same message id, requestId and usage.

// maxTranscriptTail bounds how much of a transcript is read: its last
// 8 MiB, which holds any ordinary turn.
const maxTranscriptTail = 8 << 20

// maxTranscriptLine bounds one entry; a longer line (a huge tool result)
// is skipped, which loses no usage: assistant entries are small.
const maxTranscriptLine = 4 << 20

// TranscriptUsage reads the tail of the transcript at path and returns the
// provider-reported usage of the turn promptID started: its assistant
// entries from the first user entry of that promptId on. When promptID is
// empty, or the transcript's entries carry no promptId (older clients),
// the turn is the one after the last genuine user prompt. It returns nil
// telemetry and no error when the turn has no assistant usage (or is not
// in the transcript).
func TranscriptUsage(path, promptID string) (*Telemetry, error) {
	if path == "" {
		return nil, errors.New("the payload names no transcript")
	}
	// Opened without blocking: a path that names a FIFO would otherwise
	// hold the hook (or the registry's HTTP hook handler) until someone
	// writes to it. What is not a regular file is refused below.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	var r io.Reader = f
	truncated := false
	if st.Size() > maxTranscriptTail {
		if _, err := f.Seek(st.Size()-maxTranscriptTail, io.SeekStart); err != nil {
			return nil, err
		}
		r, truncated = io.LimitReader(f, maxTranscriptTail), true
	}
	return turnUsage(r, promptID, truncated)
}

type transcriptEntry struct {
	Type             string          `json:"type"`
	PromptID         string          `json:"promptId"`
	PromptIDSnake    string          `json:"prompt_id"`
	RequestID        string          `json:"requestId"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	Message          json.RawMessage `json:"message"`
}

type transcriptMessage struct {
	ID      string          `json:"id"`
	Role    string          `json:"role"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   *struct {
		Input         *int64 `json:"input_tokens"`
		Output        *int64 `json:"output_tokens"`
		CacheCreation *int64 `json:"cache_creation_input_tokens"`
		CacheRead     *int64 `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// turnTally is the usage summed since a turn's start.
type turnTally struct {
	seen                 map[string]bool
	input, output, cache int64
	n                    int
	model                string
}

func newTally() *turnTally { return &turnTally{seen: map[string]bool{}} }

func (t *turnTally) add(e *transcriptEntry, m *transcriptMessage) {
	u := m.Usage
	if u == nil || (u.Input == nil && u.Output == nil) {
		return
	}
	key := m.ID
	if key == "" {
		key = e.RequestID
	}
	if key != "" {
		if t.seen[key] {
			return // the same response, written once per content block
		}
		t.seen[key] = true
	}
	for _, p := range []struct {
		dst *int64
		v   *int64
	}{{&t.input, u.Input}, {&t.output, u.Output}, {&t.cache, u.CacheCreation}, {&t.cache, u.CacheRead}} {
		if p.v != nil && *p.v > 0 {
			*p.dst += *p.v
		}
	}
	t.n++
	if m.Model != "" {
		t.model = m.Model
	}
}

// genuinePrompt: a user entry that is a prompt the user typed, not a tool
// result, a meta entry (command output, caveats) or a compaction summary.
func genuinePrompt(e *transcriptEntry, m *transcriptMessage) bool {
	if e.IsMeta || e.IsCompactSummary || m.Role != "user" {
		return false
	}
	c := bytes.TrimSpace(m.Content)
	if len(c) > 0 && c[0] == '"' {
		return true
	}
	var blocks []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(c, &blocks) != nil || len(blocks) == 0 {
		return false
	}
	for _, b := range blocks {
		if b.Type == "tool_result" {
			return false
		}
	}
	return true
}

func turnUsage(r io.Reader, promptID string, truncated bool) (*Telemetry, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	byPrompt := newTally() // since the first user entry of promptID
	inTurn := false        // an entry of promptID was seen (and no later prompt)
	matched := false
	anyPID := false // entries carry promptIds (v2.1.196+)
	lastPrompt := newTally()
	first := truncated // the first line of a tail is likely cut
	for {
		line, err := readLine(br)
		if len(line) > 0 && !first {
			var e transcriptEntry
			if json.Unmarshal(line, &e) == nil && (e.Type == "user" || e.Type == "assistant") {
				var m transcriptMessage
				if json.Unmarshal(e.Message, &m) == nil {
					pid := nonEmpty(e.PromptID, e.PromptIDSnake)
					anyPID = anyPID || pid != ""
					switch e.Type {
					case "user":
						if promptID != "" && pid != "" {
							if pid == promptID && !inTurn {
								inTurn, matched, byPrompt = true, true, newTally()
							} else if pid != promptID && inTurn && genuinePrompt(&e, &m) {
								inTurn = false // a later turn began
							}
						}
						if genuinePrompt(&e, &m) {
							lastPrompt = newTally()
						}
					case "assistant":
						if inTurn {
							byPrompt.add(&e, &m)
						}
						lastPrompt.add(&e, &m)
					}
				}
			}
		}
		first = false
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	t := lastPrompt
	if matched {
		t = byPrompt
	} else if promptID != "" && anyPID {
		// The turn's entries are not in the transcript (yet: it is
		// written asynchronously): another turn's usage is not this one's.
		return nil, nil
	}
	if t.n == 0 {
		return nil, nil
	}
	in, out, cache := t.input, t.output, t.cache
	return &Telemetry{Model: t.model, InputTokens: &in, OutputTokens: &out, CacheTokens: &cache, Source: "provider_reported"}, nil
}

// readLine returns the next line without its newline; a line longer than
// maxTranscriptLine is consumed and returned empty.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !over {
			if len(buf)+len(chunk) > maxTranscriptLine {
				over, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if over {
			return nil, err
		}
		return bytes.TrimRight(buf, "\r\n"), err
	}
}

// turnTelemetry sends the usage a finalize request carries (read by the
// adapter at the end of the turn, e.g. from Claude Code's transcript) as a
// telemetry call on the turn's admission, before the turn is finalized, so
// that it can be certified. It returns warnings: a failure here never
// blocks the finalize.
func turnTelemetry(c Caller, req Request, aid string) []string {
	n := sumTokens(req)
	if n == nil || req.CostSource == "" || aid == "" {
		return nil
	}
	out, err := c.Telemetry(context.Background(), wire.TelemetryParams{AdmissionID: aid, Source: req.CostSource, Tokens: n})
	if err != nil {
		return []string{"the turn's token usage was not recorded: " + err.Error()}
	}
	return out.Warnings
}
