package registry

import "time"

// SpendSeries is a lease's own charges over time (not its children's), in
// at most seriesBins equal bins starting at the lease's issue. A charge
// past the last bin merges the bins in pairs and doubles their width, so a
// lease of any age keeps a bounded series that still starts at its issue.
// It is part of the folded state, and so of a snapshot: a cockpit that
// starts from one still draws spend from the lease's issue, not from the
// snapshot's position.
type SpendSeries struct {
	Width  time.Duration // of one bin; 0 until the first charge
	Steps  []float64     // per bin, from the issue; as long as the last charged bin
	Tokens []float64     // per bin, the same length as Steps
}

const (
	// seriesBins bounds a series: at most 2 KiB a lease.
	seriesBins = 128
	// seriesFirstWidth is a new series' bin width: fine enough for a
	// lease a few seconds old, doubled as often as the lease's age needs.
	seriesFirstWidth = 100 * time.Millisecond
)

// Add charges steps and tokens at at to a series whose lease was issued at
// issued. A charge stamped before the issue (a clock step back) counts in
// the first bin.
func (s *SpendSeries) Add(issued, at time.Time, steps, tokens float64) {
	if steps == 0 && tokens == 0 {
		return
	}
	if s.Width <= 0 {
		s.Width = seriesFirstWidth
	}
	age := max(at.Sub(issued), 0)
	for age/s.Width >= seriesBins {
		s.halve()
	}
	i := int(age / s.Width)
	for len(s.Steps) <= i {
		s.Steps = append(s.Steps, 0)
		s.Tokens = append(s.Tokens, 0)
	}
	s.Steps[i] = saturatingAdd(s.Steps[i], steps)
	s.Tokens[i] = saturatingAdd(s.Tokens[i], tokens)
}

// halve merges adjacent bins in pairs and doubles the width.
func (s *SpendSeries) halve() {
	n := (len(s.Steps) + 1) / 2
	for i := range n {
		j := 2 * i
		st, tk := s.Steps[j], s.Tokens[j]
		if j+1 < len(s.Steps) {
			st, tk = saturatingAdd(st, s.Steps[j+1]), saturatingAdd(tk, s.Tokens[j+1])
		}
		s.Steps[i], s.Tokens[i] = st, tk
	}
	s.Steps, s.Tokens = s.Steps[:n], s.Tokens[:n]
	s.Width *= 2
}

// Buckets spreads the series over n equal buckets covering span from the
// issue (the lease's age, or its life once closed): each bin counts in the
// bucket holding its middle, and bins past span in the last bucket.
func (s *SpendSeries) Buckets(n int, span time.Duration) (steps, tokens []float64) {
	if n <= 0 || span <= 0 {
		return nil, nil
	}
	steps, tokens = make([]float64, n), make([]float64, n)
	for i := range s.Steps {
		mid := (float64(i) + 0.5) * float64(s.Width) // in float: i×width can pass an int64
		b := min(int(mid/float64(span)*float64(n)), n-1)
		steps[b] += s.Steps[i]
		tokens[b] += s.Tokens[i]
	}
	return steps, tokens
}

// clone copies the series: the fold appends to it after a snapshot's lock.
func (s SpendSeries) clone() SpendSeries {
	if s.Steps != nil {
		s.Steps = append(make([]float64, 0, len(s.Steps)), s.Steps...)
		s.Tokens = append(make([]float64, 0, len(s.Tokens)), s.Tokens...)
	}
	return s
}

// valid reports whether a series read from a snapshot has the shape Add
// keeps: a positive width, equal lengths, within the bound, no negative
// figure (JSON holds no infinity or NaN).
func (s SpendSeries) valid() bool {
	if len(s.Steps) != len(s.Tokens) || len(s.Steps) > seriesBins || (len(s.Steps) > 0 && s.Width <= 0) || s.Width < 0 {
		return false
	}
	for i := range s.Steps {
		if !(s.Steps[i] >= 0 && s.Tokens[i] >= 0) {
			return false
		}
	}
	return true
}
