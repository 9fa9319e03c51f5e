package journal

// Head is the seq and SHA-256 of the last line checked.
func (ch *Checker) Head() (uint64, [32]byte) { return ch.c.headSeq, ch.c.headHash }

// Verify is VerifyWith with no added rules.
func Verify(dir string, key []byte) Report {
	return VerifyWith(dir, key, VerifyOptions{})
}

// Dir is the journal directory.
func (w *Writer) Dir() string { return w.dir }

// Recoveries lists the torn tails Open moved aside.
func (w *Writer) Recoveries() []Recovery {
	return append([]Recovery(nil), w.recov...)
}
