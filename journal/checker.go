package journal

import (
	"crypto/sha256"
	"errors"
)

// Checker applies the journal's line rules — seq counts up by one, prev is
// the SHA-256 of the line before, mac (with the key) covers the line — to
// the lines of one file as they arrive. It is the one definition of those
// rules: Open, Verify and Tail use it, and so does every reader that
// follows a journal live (the cockpit), so "verified" means the same
// thing everywhere. A Checker is not safe for concurrent use.
type Checker struct {
	c  *chainChecker
	an *analyser
}

// NewChecker checks the lines of file k from its first line. key, when
// not nil, is the deployment key the macs are checked with.
func NewChecker(k Kind, key []byte) *Checker {
	c := newChainChecker(k.FileName())
	c.live = true
	return &Checker{c: c, an: newAnalyser(analyseOpts{kind: k, key: key})}
}

// NewCheckerMidFile is NewChecker for reading that starts after the
// file's first line (a tail from an offset): the first line it is given
// sets where seq counts from, and its prev cannot be checked.
func NewCheckerMidFile(k Kind, key []byte) *Checker {
	ch := NewChecker(k, key)
	ch.c.midFile = true
	return ch
}

// Check takes the next line of the file and returns the breaks it found:
// this line's, and any earlier line's that this one explains. A line
// whose bytes are not JSON cannot come from Scan or Tail, which report
// those as problems; it is a break here too.
func (ch *Checker) Check(l *Line) []Break {
	a := analysed{Line: *l, hash: sha256.Sum256(l.Raw)}
	if l.Value == nil {
		a.jsonErr = errors.New("the line was not parsed")
	} else {
		a.Seq, a.seqErr = parseSeq(l.Value["seq"])
		a.prevErr = parseHash(l.Value["prev"], &a.prev)
		if ch.an.mac != nil {
			a.mac = ch.an.checkMAC(l.Raw, l.Value)
		}
	}
	return ch.check(&a)
}

func (ch *Checker) check(a *analysed) []Break {
	ch.c.add(a)
	return ch.c.takeTouched()
}
