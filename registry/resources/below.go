package resources

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// maxBelowAlternatives bounds the brace alternatives matchesBelow walks;
// a pattern with more is taken to match below every directory.
const maxBelowAlternatives = 64

// matchesBelow reports whether pattern (slash-separated, cleaned as
// belowPattern leaves it) can match some path strictly below the literal
// directory dir: "**/.env", "*/.env" and "src/**/key" all can below
// "src", "lib/**" cannot. It walks dir's segments through the pattern's
// (a ** segment stays or is skipped), so it decides at any depth, where
// witnesses decide only for the depths they were built with. A pattern
// that cannot be interpreted matches below everything.
func matchesBelow(pattern, dir string) bool {
	if !doublestar.ValidatePattern(pattern) {
		return true
	}
	alts := expandBraces(pattern, maxBelowAlternatives+1)
	if len(alts) > maxBelowAlternatives {
		return true
	}
	dirSegs := strings.Split(dir, "/")
	for _, alt := range alts {
		if segmentsExtend(strings.Split(alt, "/"), dirSegs) {
			return true
		}
	}
	return false
}

// segmentsExtend reports whether the pattern segments pat can match dir's
// segments followed by at least one more segment: the set of places in
// pat reachable after each segment of dir, with a place left over.
func segmentsExtend(pat, dir []string) bool {
	at := skipStars(pat, []int{0})
	for _, seg := range dir {
		var next []int
		for _, i := range at {
			switch {
			case i >= len(pat):
			case pat[i] == "**":
				next = appendPlace(next, i)
			default:
				if m, err := doublestar.Match(pat[i], seg); m || err != nil {
					next = appendPlace(next, i+1)
				}
			}
		}
		if at = skipStars(pat, next); len(at) == 0 {
			return false
		}
	}
	for _, i := range at {
		if i < len(pat) {
			return true
		}
	}
	return false
}

// skipStars adds to places the place after each ** segment one of them
// stands at (a ** matches no segment too).
func skipStars(pat []string, places []int) []int {
	for k := 0; k < len(places); k++ {
		if i := places[k]; i < len(pat) && pat[i] == "**" {
			places = appendPlace(places, i+1)
		}
	}
	return places
}

func appendPlace(places []int, i int) []int {
	for _, p := range places {
		if p == i {
			return places
		}
	}
	return append(places, i)
}
