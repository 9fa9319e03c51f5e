package journal

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
)

// A registry that keeps a snapshot of its fold need not replay a whole
// journal at every start: it replays from where the snapshot was taken.
// What it gives up is the full check of every line before that point —
// their JSON, schema and mac were checked when the snapshot's state was
// folded from them. What it keeps is that those lines are still the same
// bytes: every line carries the SHA-256 of the one before it (prev), so
// the hash of the line at the position, which the snapshot records under
// its own mac, vouches for every byte before it — provided the chain from
// the first line to it is still whole. Open therefore walks the prefix
// once, hashing each line and comparing it with the next line's prev (no
// JSON, no schema, no mac: a fraction of the cost of a replay), and
// resumes only when the walk ends exactly at the recorded line. A line
// changed, removed or inserted anywhere before it breaks the walk, and
// Open replays both files from the start instead, checking everything.

// Position is a place in one journal file: its last line's seq and
// SHA-256 (hex), where that line begins, and where it ends (the offset
// the next line is written at). A file with no line is Seq 0, ZeroHash,
// 0, 0.
type Position struct {
	Seq    uint64 `json:"seq"`
	Hash   string `json:"hash"`
	Offset int64  `json:"offset"`
	End    int64  `json:"end"`
}

// Resume asks Open to replay from a position instead of the files' start.
type Resume struct {
	Files [2]Position // by Kind
	// CheckpointSeq is the audit seq of the last signed checkpoint at the
	// position; a kept head that names an older one never saw it.
	CheckpointSeq uint64
	// Decided is called once, before any line is replayed: used says
	// whether Replay starts after Files (true) or at the first line of
	// both files (false, and why says what did not match).
	Decided func(used bool, why string)
}

// Position is where each file ends as acknowledged (every line in it is
// fsync'd and named by the kept head), and the audit seq of the last
// signed checkpoint.
func (w *Writer) Position() (files [2]Position, checkpointSeq uint64) {
	w.stateMu.Lock()
	defer w.stateMu.Unlock()
	for _, k := range Kinds {
		fsx := w.files[k]
		files[k] = Position{Seq: fsx.seq, Hash: hex.EncodeToString(fsx.head[:]), Offset: fsx.lastOff, End: fsx.size}
	}
	return files, w.lastCP
}

// decideResume checks the resume positions against the files and the
// kept head, and tells the caller which replay follows. It returns the
// positions to start from, or nil for the files' start.
func (w *Writer) decideResume() *[2]Position {
	r := w.opts.Resume
	if r == nil {
		return nil
	}
	why := w.resumeMismatch(r)
	if r.Decided != nil {
		r.Decided(why == "", why)
	}
	if why != "" {
		return nil
	}
	return &r.Files
}

// resumeMismatch is why the journal cannot be resumed at r, or "".
func (w *Writer) resumeMismatch(r *Resume) string {
	var files [2]io.ReaderAt
	var sizes [2]int64
	for _, k := range Kinds {
		st, err := w.files[k].f.Stat()
		if err != nil {
			return fmt.Sprintf("%s: %v", k.FileName(), err)
		}
		files[k], sizes[k] = w.files[k].f, st.Size()
	}
	return resumeProblem(w.kept, r, files, sizes)
}

// resumeProblem compares a resume position with the kept head (nil: none
// kept) and walks each file's prefix.
func resumeProblem(kept *Head, r *Resume, files [2]io.ReaderAt, sizes [2]int64) string {
	if kept != nil && kept.CheckpointSeq < r.CheckpointSeq {
		return fmt.Sprintf("the snapshot names a signed checkpoint at audit seq %d that the kept head (checkpoint seq %d) never acknowledged", r.CheckpointSeq, kept.CheckpointSeq)
	}
	for _, k := range Kinds {
		p := r.Files[k]
		name := k.FileName()
		if kept != nil && kept.Files[k].Seq < p.Seq {
			return fmt.Sprintf("%s: the snapshot is at seq %d, newer than the journal's acknowledged head (seq %d)", name, p.Seq, kept.Files[k].Seq)
		}
		if sizes[k] < p.End {
			return fmt.Sprintf("%s: the file is %d bytes, shorter than the snapshot's position (seq %d ends at byte %d)", name, sizes[k], p.Seq, p.End)
		}
		if err := checkPrefix(files[k], p); err != nil {
			return fmt.Sprintf("%s: %v", name, err)
		}
	}
	return ""
}

// CheckResume is Open's check of a resume position for a reader that does
// not write the journal (the cockpit): the files in dir and the head kept
// at headPath ("" or absent: none) must agree with r. It returns why not,
// or "".
func CheckResume(dir, headPath string, key []byte, r *Resume) string {
	var kept *Head
	if headPath != "" {
		h, err := ReadHead(headPath, key)
		switch {
		case err == nil:
			kept = h
		case !errors.Is(err, ErrNoHead):
			return err.Error()
		}
	}
	var files [2]io.ReaderAt
	var sizes [2]int64
	for _, k := range Kinds {
		f, err := os.Open(filepath.Join(dir, k.FileName()))
		if err != nil {
			return err.Error()
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err.Error()
		}
		files[k], sizes[k] = f, st.Size()
	}
	return resumeProblem(kept, r, files, sizes)
}

// NewCheckerAt is NewChecker for reading that continues after p (a
// resume): the next line must have seq p.Seq+1 and prev p.Hash.
func NewCheckerAt(k Kind, key []byte, p Position) *Checker {
	ch := NewChecker(k, key)
	ch.c.seed(p)
	return ch
}

// checkPrefix walks a file's lines up to p.End, checking that each line's
// prev is the SHA-256 of the line before it, that seq counts 1, 2, …, and
// that the walk ends with the line p names, at p.End. The file is cut at
// line boundaries into one piece per core, walked at once, and the pieces'
// ends are then linked like any two lines.
func checkPrefix(r io.ReaderAt, p Position) error {
	want, err := hex.DecodeString(p.Hash)
	if err != nil || len(want) != sha256.Size {
		return fmt.Errorf("the snapshot's line hash %q is not 64 hex digits", p.Hash)
	}
	if p.Seq == 0 {
		if p.End != 0 || p.Hash != ZeroHash {
			return errors.New("the snapshot's position of an empty file is not at its start")
		}
		return nil
	}
	cuts := lineCuts(r, p.End, runtime.GOMAXPROCS(0))
	pieces := make([]piece, len(cuts)-1)
	var wg sync.WaitGroup
	for i := range pieces {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pieces[i] = walkPiece(r, cuts[i], cuts[i+1])
		}()
	}
	wg.Wait()
	var seq uint64
	var prev [32]byte
	var lineStart int64
	for _, pc := range pieces {
		if pc.err != nil {
			return pc.err
		}
		if pc.lines == 0 {
			continue
		}
		switch {
		case pc.firstSeq != seq+1:
			return fmt.Errorf("line %d (offset %d) has seq %d", seq+1, pc.from, pc.firstSeq)
		case pc.firstPrev != prev:
			return fmt.Errorf("seq %d (offset %d): prev is not the hash of seq %d: a line before the snapshot's position was changed", seq+1, pc.from, seq)
		}
		seq, prev, lineStart = pc.firstSeq+uint64(pc.lines)-1, pc.lastHash, pc.lastStart
	}
	switch {
	case seq != p.Seq:
		return fmt.Errorf("the file holds %d lines before byte %d, the snapshot's position says %d", seq, p.End, p.Seq)
	case lineStart != p.Offset:
		return fmt.Errorf("seq %d begins at byte %d, the snapshot's position says %d", seq, lineStart, p.Offset)
	case !bytes.Equal(prev[:], want):
		return fmt.Errorf("seq %d is not the line the snapshot was taken at (its hash is %s, the snapshot's %s): the journal was rewritten", seq, hex.EncodeToString(prev[:8]), p.Hash[:16])
	}
	return nil
}

// lineCuts cuts [0, end) into up to n pieces at line starts.
func lineCuts(r io.ReaderAt, end int64, n int) []int64 {
	cuts := []int64{0}
	buf := make([]byte, 64<<10)
	for i := 1; i < n; i++ {
		at := end * int64(i) / int64(n)
		if at <= cuts[len(cuts)-1] {
			continue
		}
		got, _ := r.ReadAt(buf[:min(int64(len(buf)), end-at)], at)
		if j := bytes.IndexByte(buf[:got], '\n'); j >= 0 && at+int64(j)+1 < end {
			cuts = append(cuts, at+int64(j)+1)
		}
	}
	return append(cuts, end)
}

// piece is what the walk of one piece of a file found.
type piece struct {
	from                int64
	firstSeq            uint64
	firstPrev, lastHash [32]byte
	lastStart           int64
	lines               int
	err                 error
}

// walkPiece hashes the lines of [from, to), which begins at a line start,
// and checks the links between them.
func walkPiece(r io.ReaderAt, from, to int64) piece {
	pc := piece{from: from}
	br := bufio.NewReaderSize(io.NewSectionReader(r, from, to-from), 1<<20)
	var long []byte
	off := from
	for {
		part, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, part...)
			if len(long) > maxLineSize {
				pc.err = fmt.Errorf("a line at offset %d is longer than %d bytes", off, maxLineSize)
				return pc
			}
			continue
		}
		if err == io.EOF && len(part) == 0 && len(long) == 0 {
			return pc
		}
		line := part
		if len(long) > 0 {
			line = append(long, part...)
			long = long[:0]
		}
		if err != nil || line[len(line)-1] != '\n' {
			pc.err = fmt.Errorf("the bytes before the snapshot's position end inside a line (offset %d)", off)
			return pc
		}
		raw := line[:len(line)-1]
		lineSeq, linePrev, ok := chainTrailer(raw)
		switch {
		case !ok:
			pc.err = fmt.Errorf("the line at offset %d does not end with seq, prev and mac members", off)
		case pc.lines == 0:
			pc.firstSeq, pc.firstPrev = lineSeq, linePrev
		case lineSeq != pc.firstSeq+uint64(pc.lines):
			pc.err = fmt.Errorf("line %d (offset %d) has seq %d", pc.firstSeq+uint64(pc.lines), off, lineSeq)
		case linePrev != pc.lastHash:
			pc.err = fmt.Errorf("seq %d (offset %d): prev is not the hash of seq %d: a line before the snapshot's position was changed", lineSeq, off, lineSeq-1)
		}
		if pc.err != nil {
			return pc
		}
		pc.lastHash, pc.lastStart = sha256.Sum256(raw), off
		pc.lines++
		off += int64(len(line))
	}
}

// chainTrailer reads the seq and prev of a line as the writer ends it:
// …,"seq":N,"prev":"<64 hex>","mac":"<64 hex>"}.
func chainTrailer(raw []byte) (seq uint64, prev [32]byte, ok bool) {
	const prevMember, seqMember = `,"prev":"`, `"seq":`
	signed, mac, ok := splitMAC(raw)
	if !ok || !isLowerHex(mac) || len(signed) < len(prevMember)+65+len(seqMember)+2 || signed[len(signed)-1] != '"' {
		return 0, prev, false
	}
	hexStart := len(signed) - 65
	digest := signed[hexStart : len(signed)-1]
	if string(signed[hexStart-len(prevMember):hexStart]) != prevMember || !isLowerHex(digest) {
		return 0, prev, false
	}
	hex.Decode(prev[:], digest)
	digitsEnd := hexStart - len(prevMember)
	i := digitsEnd
	for i > 0 && signed[i-1] >= '0' && signed[i-1] <= '9' {
		i--
	}
	switch {
	case i == digitsEnd, signed[i] == '0' && digitsEnd-i > 1, i < len(seqMember)+1,
		string(signed[i-len(seqMember):i]) != seqMember:
		return 0, prev, false
	}
	if c := signed[i-len(seqMember)-1]; c != ',' && c != '{' {
		return 0, prev, false
	}
	seq, err := strconv.ParseUint(string(signed[i:digitsEnd]), 10, 64)
	return seq, prev, err == nil
}

// seed makes a chain checker continue after p, as if it had read every
// line up to it and found them intact.
func (c *chainChecker) seed(p Position) {
	var h [32]byte
	hex.Decode(h[:], []byte(p.Hash))
	c.lines = int(p.Seq)
	c.maxSeq, c.prevSeq = p.Seq, p.Seq
	c.headSeq, c.headHash = p.Seq, h
	if p.Seq > 0 {
		c.ring[p.Seq%ringSize] = ringEntry{seq: p.Seq, hash: h, line: int(p.Seq)}
	}
}

// seedProbe tells a head probe that the lines up to p were seen intact.
func (p *headProbe) seedProbe(pos Position) {
	if pos.Seq == p.want.Seq && pos.Seq > 0 {
		var h [32]byte
		hex.Decode(h[:], []byte(pos.Hash))
		p.found, p.hash, p.end, p.line = true, h, pos.End, int(pos.Seq)
	}
}
