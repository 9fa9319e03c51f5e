package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/leasedeck/leasedeck/schemas"
)

const (
	// chunkSize is how much is read at a time; lines are sliced out of the
	// chunk, which is never reused, so a Line's Raw stays valid for as long
	// as someone holds it.
	chunkSize = 1 << 20
	// jobLines is how many lines a worker analyses at a time: enough to
	// amortise the channel hand-offs, small enough to spread the work.
	jobLines = 128
	// maxLineSize bounds one line. Journal lines are a few KiB at most; a
	// run of bytes this long without a newline is damage, and buffering it
	// without bound would let damage exhaust memory.
	maxLineSize = 64 << 20
	// parallelMin: below this many bytes, analysing inline is cheaper than
	// starting workers (the tailer's usual few new lines).
	parallelMin = 64 << 10
)

// LineError is a complete line that could not be used: not JSON, or not
// valid against its file's schema. Readers report it and keep going.
type LineError struct {
	File   string // the path read
	Number int    // 1-based line number
	Offset int64  // byte offset of the line
	Seq    uint64 // the line's seq, when it could be read
	Reason string
	Schema []schemas.Error // the violations, for a schema-invalid line
	Raw    []byte
}

func (e *LineError) Error() string {
	return fmt.Sprintf("%s line %d: %s", e.File, e.Number, e.Reason)
}

// ReadError collects the bad lines of one read. The good lines around them
// are returned as usual: one bad line never hides the rest.
type ReadError struct {
	Problems []*LineError
}

func (e *ReadError) Error() string {
	msgs := make([]string, 0, 4)
	for i, p := range e.Problems {
		if i == 3 {
			msgs = append(msgs, fmt.Sprintf("and %d more", len(e.Problems)-3))
			break
		}
		msgs = append(msgs, p.Error())
	}
	return strings.Join(msgs, "; ")
}

// lineProblem is what a reader without the key reports about a line.
func lineProblem(path string, a *analysed) *LineError {
	var reason string
	switch {
	case a.jsonErr != nil:
		reason = "not JSON: " + a.jsonErr.Error() + " in " + oneLine(a.Raw, 60)
	case a.schemaErr != nil:
		reason = "cannot be validated: " + a.schemaErr.Error()
	case len(a.schema) > 0:
		reason = "not a valid " + string(mustKind(path).Shape()) + ": " + schemaSummary(a.schema)
	default:
		return nil
	}
	return &LineError{File: path, Number: a.Number, Offset: a.Offset, Seq: a.Seq, Reason: reason, Schema: a.schema, Raw: bytes.Clone(a.Raw)}
}

func mustKind(path string) Kind {
	k, _ := KindOf(path)
	return k
}

// ReadFrom reads the complete lines of a journal file from offset: every
// line parsed (unknown members kept), checked against its file's schema
// (the file's kind comes from its name: leases.jsonl… or audit.jsonl…).
// next is the offset after the last complete line, where the following
// read should start; a partial last line — one being written — is left for
// it. Bad lines are left out of lines and reported together in a
// *ReadError, after every good line has been read. Line numbers are exact:
// from a non-zero offset the lines before it are counted first.
//
// ReadFrom holds every line in memory; to replay a large journal, Scan.
func ReadFrom(path string, offset int64) (lines []Line, next int64, err error) {
	err = scanPath(path, offset, false, func(l *Line) error {
		lines = append(lines, *l)
		return nil
	}, &next)
	return lines, next, err
}

// Scan is ReadFrom for replay: it calls fn for each good line in order
// without holding them all, so memory stays flat whatever the journal's
// size. Lines are parsed and validated on every core, and delivered in
// file order. fn may keep l.Value and anything in it, but not l.Raw or l
// itself: their memory is recycled after fn returns (copy Raw to keep it).
// An error from fn stops the scan and is returned as is.
func Scan(path string, offset int64, fn func(*Line) error) (next int64, err error) {
	err = scanPath(path, offset, true, fn, &next)
	return next, err
}

func scanPath(path string, offset int64, reuse bool, fn func(*Line) error, next *int64) error {
	*next = offset
	k, ok := KindOf(path)
	if !ok {
		return fmt.Errorf("journal: %s is neither %s nor %s", path, LeasesFile, AuditFile)
	}
	if offset < 0 {
		return fmt.Errorf("journal: negative offset %d", offset)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size()-offset > bigScan {
		defer relaxGC()()
	}
	before := 0
	if offset > 0 {
		if before, err = countLines(f, offset); err != nil {
			return err
		}
	}
	var problems []*LineError
	n, err := scan(f, offset, before, analyseOpts{kind: k, validate: true}, reuse, func(a *analysed) error {
		if p := lineProblem(path, a); p != nil {
			problems = append(problems, p)
			return nil
		}
		return fn(&a.Line)
	})
	*next = n
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return &ReadError{Problems: problems}
	}
	return nil
}

// countLines counts the newlines before offset, so that line numbers stay
// absolute when reading starts in the middle of a file.
func countLines(r io.ReaderAt, offset int64) (int, error) {
	buf := make([]byte, chunkSize)
	n := 0
	for pos := int64(0); pos < offset; {
		want := buf
		if rem := offset - pos; rem < int64(len(want)) {
			want = want[:rem]
		}
		got, err := r.ReadAt(want, pos)
		n += bytes.Count(want[:got], []byte{'\n'})
		pos += int64(got)
		if err == io.EOF {
			if pos < offset {
				return 0, fmt.Errorf("journal: offset %d is past the end of the file (%d bytes)", offset, pos)
			}
			break
		}
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}

// chunk is one read's buffer. Lines are slices of it, so with reuse on it
// goes back to the pool only when every job cut from it is done (refs).
type chunk struct {
	buf  []byte
	refs atomic.Int32
}

// Replaying a large journal allocates mostly parse trees; recycling the
// read buffers and line slots as well takes a fifth off what the garbage
// collector has to chase, which on two cores is time off the replay.
var (
	chunkPool = sync.Pool{New: func() any { return &chunk{buf: make([]byte, chunkSize)} }}
	itemsPool = sync.Pool{New: func() any { s := make([]analysed, 0, jobLines); return &s }}
)

func (c *chunk) unref(reuse bool) {
	if c.refs.Add(-1) == 0 && reuse && cap(c.buf) == chunkSize {
		chunkPool.Put(c)
	}
}

// job is a run of consecutive lines of one chunk, analysed by one worker.
type job struct {
	items []analysed
	done  chan struct{}
	chunk *chunk
}

// release recycles a job once nobody can look at its lines any more.
func (j *job) release(reuse bool) {
	if !reuse || j == nil {
		return
	}
	clear(j.items) // drop the parse trees now, not when the slot is reused
	items := j.items[:0]
	itemsPool.Put(&items)
	j.chunk.unref(reuse)
}

// splitter cuts the bytes of r from an offset into complete lines, in jobs.
type splitter struct {
	r       io.ReaderAt
	reuse   bool
	pos     int64 // offset of the next byte to read
	number  int   // lines seen so far
	cur     *chunk
	pending []byte // unread part of cur
	pendOff int64  // offset of pending[0]
	carry   []byte // a partial line waiting for the next read
	eof     bool
}

// next returns the next job of up to jobLines complete lines of one chunk,
// or nil at the end of the data. A partial line at the end is never
// returned.
func (s *splitter) next() (*job, error) {
	var items []analysed
	for len(items) < jobLines {
		if len(s.pending) == 0 {
			if s.eof || len(items) > 0 {
				break // a job never spans two chunks
			}
			if err := s.fill(); err != nil {
				return nil, err
			}
			continue
		}
		i := bytes.IndexByte(s.pending, '\n')
		if i < 0 {
			// A partial line: keep it and read on, unless the data ended.
			s.carry = append(s.carry[:0], s.pending...)
			s.pending = nil
			continue
		}
		if items == nil {
			if s.reuse {
				items = (*itemsPool.Get().(*[]analysed))[:0]
			} else {
				items = make([]analysed, 0, jobLines)
			}
		}
		s.number++
		items = append(items, analysed{Line: Line{Raw: s.pending[:i:i], Number: s.number, Offset: s.pendOff}})
		s.pending = s.pending[i+1:]
		s.pendOff += int64(i) + 1
	}
	if len(items) == 0 {
		return nil, nil
	}
	s.cur.refs.Add(1)
	return &job{items: items, chunk: s.cur}, nil
}

// fill reads the next chunk, prefixed by the carried partial line. Without
// reuse the buffer is always fresh, so lines handed out stay intact.
func (s *splitter) fill() error {
	if len(s.carry) > maxLineSize {
		return fmt.Errorf("journal: a line at offset %d is longer than %d bytes", s.pos-int64(len(s.carry)), maxLineSize)
	}
	var c *chunk
	switch {
	case len(s.carry) > chunkSize/2:
		size := chunkSize
		for size < 2*len(s.carry) {
			size *= 2
		}
		c = &chunk{buf: make([]byte, size)}
	case s.reuse:
		c = chunkPool.Get().(*chunk)
	default:
		c = &chunk{buf: make([]byte, chunkSize)}
	}
	c.refs.Store(1) // the splitter's own, while it reads from it
	n0 := copy(c.buf, s.carry)
	n, err := s.r.ReadAt(c.buf[n0:], s.pos)
	if errors.Is(err, io.EOF) || (err == nil && n == 0) {
		s.eof = true
	} else if err != nil {
		c.unref(s.reuse)
		return err
	}
	if s.cur != nil {
		s.cur.unref(s.reuse)
	}
	s.cur = c
	s.pendOff = s.pos - int64(n0)
	s.pos += int64(n)
	if n == 0 {
		// Nothing new: the carried bytes stay a partial line.
		s.pending = nil
		return nil
	}
	s.carry = s.carry[:0]
	s.pending = c.buf[:n0+n]
	return nil
}

// scan reads r from offset and calls emit for every complete line, in file
// order, after analysing it with opts. Analysis runs on every core when
// there is enough data to make it worth it. It returns the offset after the
// last complete line emitted.
//
// With reuse, a line's Raw bytes (and its *analysed) are recycled once the
// lines of the following job have been emitted: emit may hold on to the
// line it was last given until scan returns, no longer.
func scan(r io.ReaderAt, offset int64, before int, opts analyseOpts, reuse bool, emit func(*analysed) error) (int64, error) {
	if sized, ok := r.(interface{ Size() int64 }); ok && sized.Size()-offset > bigScan {
		defer relaxGC()()
	}
	s := &splitter{r: r, pos: offset, number: before, reuse: reuse}
	next := offset
	// Each job is recycled one job late, so that the line emitted last
	// stays valid while the next job is emitted (Open and Verify hold the
	// last line back one step), and the final one is left to the GC.
	var prev *job

	first, err := s.next()
	if err != nil || first == nil {
		return next, err
	}
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || (s.eof && s.pos-offset < parallelMin) {
		an := newAnalyser(opts)
		for j := first; j != nil; {
			for i := range j.items {
				an.analyse(&j.items[i])
				if err := emit(&j.items[i]); err != nil {
					return next, err
				}
				next = j.items[i].End()
			}
			prev.release(reuse)
			prev = j
			if j, err = s.next(); err != nil {
				return next, err
			}
		}
		return next, nil
	}

	// Workers analyse jobs in any order; the consumer below takes them in
	// file order from the order channel and waits for each to be done.
	work := make(chan *job, workers*2)
	order := make(chan *job, workers*4)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			an := newAnalyser(opts)
			for j := range work {
				for i := range j.items {
					an.analyse(&j.items[i])
				}
				close(j.done)
			}
		}()
	}
	var readErr error
	go func() {
		defer close(work)
		defer close(order)
		for j := first; j != nil; {
			j.done = make(chan struct{})
			select {
			case order <- j:
			case <-stop:
				return
			}
			work <- j
			if j, readErr = s.next(); readErr != nil {
				return
			}
		}
	}()
	var emitErr error
	for j := range order {
		<-j.done
		for i := range j.items {
			if emitErr = emit(&j.items[i]); emitErr != nil {
				break
			}
			next = j.items[i].End()
		}
		if emitErr != nil {
			close(stop)
			for range order {
			}
			break
		}
		prev.release(reuse)
		prev = j
	}
	wg.Wait()
	if emitErr != nil {
		return next, emitErr
	}
	return next, readErr
}

// bigScan is the amount of journal above which a scan relaxes the
// garbage collector.
const bigScan = 16 << 20

var relaxMu sync.Mutex
var relaxDepth int
var relaxSaved int

// relaxGC lets the heap grow to five times the live data (GOGC=400)
// while a large journal is read, and returns the function that restores
// the setting. Parsing a journal makes short-lived garbage in proportion
// to its size while the live set stays small (tens of MB for a million
// lines), so the default GOGC=100 spends a third of a replay collecting:
// measured on a 1,000,000-line journal, 3.1 s → 2.4 s and 44 → 102 MB.
// Nested and concurrent scans share one relaxation.
func relaxGC() func() {
	relaxMu.Lock()
	if relaxDepth == 0 {
		relaxSaved = debug.SetGCPercent(400)
		if relaxSaved > 400 || relaxSaved < 0 {
			debug.SetGCPercent(relaxSaved) // already more relaxed (or off): keep it
		}
	}
	relaxDepth++
	relaxMu.Unlock()
	return func() {
		relaxMu.Lock()
		relaxDepth--
		if relaxDepth == 0 {
			debug.SetGCPercent(relaxSaved)
		}
		relaxMu.Unlock()
	}
}
