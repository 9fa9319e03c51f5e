package registry

import (
	"math/rand"
	"testing"
	"time"
)

// A series keeps every charge (the bins' total is the charges' total), at
// most seriesBins bins, and each charge in the bin its age falls in: the
// charges before any instant lie between the bins wholly before it and
// the bins begun before it.
func TestSpendSeriesKeepsEveryChargeInItsBin(t *testing.T) {
	issued := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for seed := int64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var s SpendSeries
		type charge struct {
			age          time.Duration
			steps, token float64
		}
		var all []charge
		span := []time.Duration{time.Second, time.Minute, time.Hour, 400 * 24 * time.Hour}[rng.Intn(4)]
		for range rng.Intn(300) {
			c := charge{age: time.Duration(rng.Int63n(int64(span))), steps: float64(rng.Intn(3)), token: float64(rng.Intn(1000))}
			if rng.Intn(20) == 0 {
				c.age = -time.Duration(rng.Int63n(int64(time.Hour))) // stamped before the issue
			}
			all = append(all, c)
			s.Add(issued, issued.Add(c.age), c.steps, c.token)
		}
		if len(s.Steps) > seriesBins || len(s.Steps) != len(s.Tokens) || !s.valid() {
			t.Fatalf("seed %d: %d/%d bins, valid %v", seed, len(s.Steps), len(s.Tokens), s.valid())
		}
		for probe := range 20 {
			at := time.Duration(rng.Int63n(int64(span)))
			if probe == 0 {
				at = span
			}
			var before, whole, begun float64
			for _, c := range all {
				if max(c.age, 0) < at {
					before += c.token
				}
			}
			for i, v := range s.Tokens {
				if time.Duration(i+1)*s.Width <= at {
					whole += v
				}
				if time.Duration(i)*s.Width < at {
					begun += v
				}
			}
			if before < whole || before > begun {
				t.Fatalf("seed %d: %v tokens charged before %v, bins wholly before hold %v, bins begun before %v (width %v)", seed, before, at, whole, begun, s.Width)
			}
		}
		steps, tokens := s.Buckets(37, span)
		var st, tk, wantSt, wantTk float64
		for i := range steps {
			st, tk = st+steps[i], tk+tokens[i]
		}
		for _, c := range all {
			wantSt, wantTk = wantSt+c.steps, wantTk+c.token
		}
		if st != wantSt || tk != wantTk {
			t.Fatalf("seed %d: buckets hold %v steps %v tokens, the charges %v %v", seed, st, tk, wantSt, wantTk)
		}
	}
}

// A charge decades away keeps the series bounded and its arithmetic in
// range.
func TestSpendSeriesFarCharge(t *testing.T) {
	issued := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var s SpendSeries
	s.Add(issued, issued.Add(time.Second), 1, 0)
	s.Add(issued, issued.Add(200*365*24*time.Hour), 2, 0)
	if len(s.Steps) > seriesBins || s.Width <= 0 {
		t.Fatalf("%d bins, width %v", len(s.Steps), s.Width)
	}
	steps, _ := s.Buckets(10, 200*365*24*time.Hour)
	if steps[0] != 1 || steps[9] != 2 {
		t.Fatalf("buckets %v", steps)
	}
}

func TestSpendSeriesValid(t *testing.T) {
	for _, s := range []SpendSeries{
		{Width: time.Second, Steps: []float64{1}, Tokens: nil},
		{Width: 0, Steps: []float64{1}, Tokens: []float64{0}},
		{Width: -time.Second},
		{Width: time.Second, Steps: []float64{-1}, Tokens: []float64{0}},
		{Width: time.Second, Steps: make([]float64, seriesBins+1), Tokens: make([]float64, seriesBins+1)},
	} {
		if s.valid() {
			t.Errorf("%+v read as valid", s)
		}
	}
}
