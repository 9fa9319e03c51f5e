package registry

import (
	"bufio"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// lineBudget is the bytes of unfinished messages all connections may
// hold at once. Without it, many clients that each send most of a
// maximal message and no newline would hold the registry's memory.
type lineBudget struct {
	max  int64
	held atomic.Int64
}

func (b *lineBudget) take(n int64) bool {
	if b.held.Add(n) > b.max {
		b.held.Add(-n)
		return false
	}
	return true
}

func (b *lineBudget) give(n int64) { b.held.Add(-n) }

// lineReader reads newline-terminated messages of at most max bytes. A
// message that fits the read buffer is copied once; a longer one grows a
// buffer of its own, charged to the budget and dropped with the message,
// so nothing of it outlives the line.
type lineReader struct {
	r      *bufio.Reader
	max    int
	budget *lineBudget
}

func newLineReader(r io.Reader, max int, budget *lineBudget) *lineReader {
	br := lineBuffers.Get().(*bufio.Reader)
	br.Reset(r)
	return &lineReader{r: br, max: max, budget: budget}
}

// lineBuffers keeps the connections' read buffers: every hook is a new
// connection, and a fresh 64 KiB buffer for each (allocated, zeroed,
// collected) was a good part of what the registry spent per call. A
// buffer goes back only once its connection's reader has stopped; what
// a message left in it cannot be read through the next connection's
// reader (Reset empties it), and messages are copied out of it anyway.
var lineBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// release gives the read buffer back; lr must not be used after it.
func (lr *lineReader) release() {
	lr.r.Reset(nil)
	lineBuffers.Put(lr.r)
	lr.r = nil
}

// next reads one message. A message over max, or one the budget cannot
// hold, is a refusal (too_large): the caller answers it and closes the
// connection, since what follows is not in step. err is the read error
// that ended the message, if any (a last message without a newline
// comes with io.EOF). held is what msg holds of the budget: the caller
// gives it back once the message is answered, so messages queued on a
// connection count too.
func (lr *lineReader) next() (msg []byte, held int64, refusal *wire.Error, err error) {
	var buf []byte
	defer func() {
		if msg == nil {
			lr.budget.give(held)
			held = 0
		}
	}()
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(buf)+len(chunk) > lr.max+2 { // room for a CR LF
			return nil, held, wire.Errorf(wire.TooLarge, "message larger than %d MiB", lr.max>>20), nil
		}
		if buf == nil && !errors.Is(err, bufio.ErrBufferFull) {
			return append([]byte(nil), trimNL(chunk)...), 0, nil, err
		}
		if need := len(buf) + len(chunk); need > cap(buf) {
			grown := min(max(2*cap(buf), need), lr.max+2)
			if !lr.budget.take(int64(grown - cap(buf))) {
				return nil, held, wire.Errorf(wire.TooLarge, "the registry holds as many unfinished large messages as it allows; send it again later"), nil
			}
			held += int64(grown - cap(buf))
			buf = append(make([]byte, 0, grown), buf...)
		}
		buf = append(buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return trimNL(buf), held, nil, err
		}
	}
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
