package redact

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// rulesJSON holds the detectors as data, with the texts each must find and
// the texts nothing may change (rules_test.go runs them all).
//
//go:embed rules.json
var rulesJSON []byte

// Example is a text a detector must redact and the secret in it that must
// disappear.
type Example struct {
	Text   string `json:"text"`
	Secret string `json:"secret"`
}

// rule is one detector as written in rules.json.
type rule struct {
	Kind      string   `json:"kind"`
	Why       string   `json:"why"`
	Hints     []string `json:"hints"`
	Keyword   string   `json:"keyword"`
	Multiline bool     `json:"multiline"`
	Pattern   string   `json:"pattern"`
	Group     int      `json:"group"`
	KeyGroup  int      `json:"key_group"`
	// Checks that reject look-alikes.
	KeyNamesSecret    bool    `json:"key_names_secret"`
	KeyMayBeKey       bool    `json:"key_may_be_key"`
	ValueNotReference bool    `json:"value_not_reference"`
	ValueNotScheme    bool    `json:"value_not_auth_scheme"`
	ValueNotOption    bool    `json:"value_not_option"`
	ValueNeedsDigit   bool    `json:"value_needs_digit"`
	MinEntropy        float64 `json:"min_entropy"`

	Finds   []Example `json:"finds"`
	Ignores []string  `json:"ignores"`
}

// runRule is the hand-written scan for long random-looking runs (scanRuns).
type runRule struct {
	Kind       string    `json:"kind"`
	MinLength  int       `json:"min_length"`
	MinEntropy float64   `json:"min_entropy"`
	Finds      []Example `json:"finds"`
	Ignores    []string  `json:"ignores"`
}

type rulesFile struct {
	SecretWords    []string    `json:"secret_words"`
	SecretPairs    [][2]string `json:"secret_pairs"`
	Keywords       []string    `json:"keywords"`
	AuthSchemes    []string    `json:"auth_schemes"`
	ReferenceWords []string    `json:"reference_words"`
	Detectors      []rule      `json:"detectors"`
	Runs           runRule     `json:"runs"`
}

// keyForm says where a keyword detector's match starts.
type keyForm int

const (
	notKeyword keyForm = iota
	keyDotted          // at the key, dots included ("db.password = …")
	keyPlain           // at the key, without dots ("token 3fa9…")
	keyFlag            // at the key's leading dashes, after a blank ("--password …")
)

var keyForms = map[string]keyForm{"": notKeyword, "dotted": keyDotted, "plain": keyPlain, "flag": keyFlag}

// detector is a rule ready to run. Speed matters (the registry scans whole
// prompts): a detector whose hints are absent costs a substring search
// instead of a regexp scan, and its expression is compiled only the first
// time its hints appear.
type detector struct {
	rule
	keyword keyForm
	re      *lazyRE
	hintIDs []int // Hints in the vocabulary's literal index
}

// vocabulary is everything the detectors share, built once from rules.json.
type vocabulary struct {
	detectors   []detector
	runs        runRule
	secretWords map[string]bool
	secretPairs map[[2]string]bool
	keywords    []string
	keywordIDs  []int // keywords in the literal index
	literals    literalIndex
	authSchemes map[string]bool
	references  map[string]bool
}

// rules parses the embedded file on first use: a hook process that never
// redacts must not pay for it. The file is part of the binary, so an
// error in it is a programming error that every test run catches.
var rules = sync.OnceValue(func() *vocabulary {
	v, err := parseRules(rulesJSON)
	if err != nil {
		panic("redact: rules.json: " + err.Error())
	}
	return v
})

func parseRules(data []byte) (*vocabulary, error) {
	var f rulesFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	v := &vocabulary{runs: f.Runs, keywords: f.Keywords,
		secretWords: set(f.SecretWords), authSchemes: set(f.AuthSchemes), references: set(f.ReferenceWords),
		secretPairs: make(map[[2]string]bool, len(f.SecretPairs))}
	for _, p := range f.SecretPairs {
		v.secretPairs[p] = true
	}
	for i, r := range f.Detectors {
		form, ok := keyForms[r.Keyword]
		if !ok {
			return nil, fmt.Errorf("/detectors/%d/keyword: unknown form %q", i, r.Keyword)
		}
		if r.Kind == "" || r.Pattern == "" {
			return nil, fmt.Errorf("/detectors/%d: kind and pattern are required", i)
		}
		if form == notKeyword && len(r.Hints) == 0 {
			return nil, fmt.Errorf("/detectors/%d/hints: a detector that is not a keyword detector needs hints", i)
		}
		d := detector{rule: r, keyword: form, re: lazy(r.Pattern)}
		for _, h := range r.Hints {
			if h != strings.ToLower(h) {
				return nil, fmt.Errorf("/detectors/%d/hints: %q is not lower case", i, h)
			}
			if len(h) < 2 {
				return nil, fmt.Errorf("/detectors/%d/hints: %q is shorter than two bytes", i, h)
			}
			d.hintIDs = append(d.hintIDs, v.literals.add(h))
		}
		v.detectors = append(v.detectors, d)
	}
	for i, k := range f.Keywords {
		if k != strings.ToLower(k) || len(k) < 2 {
			return nil, fmt.Errorf("/keywords/%d: %q is not a lower-case word of two bytes or more", i, k)
		}
		v.keywordIDs = append(v.keywordIDs, v.literals.add(k))
	}
	if v.runs.MinLength <= 0 {
		return nil, fmt.Errorf("/runs/min_length: must be positive")
	}
	return v, nil
}

func set(words []string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// accept applies a rule's checks to a match m of s (offsets relative to s).
func (v *vocabulary) accept(d *detector, m []int, s string) bool {
	val := group(m, s, d.Group)
	if d.KeyGroup > 0 {
		key := group(m, s, d.KeyGroup)
		secretish := !d.KeyNamesSecret || v.isSecretKey(key)
		if !secretish && d.KeyMayBeKey {
			for _, sg := range keySegments(key) {
				if sg == "key" || sg == "keys" {
					secretish = true
				}
			}
		}
		if !secretish {
			return false
		}
	}
	switch {
	case d.ValueNotReference && v.isReference(val),
		d.ValueNotScheme && v.authSchemes[strings.ToLower(val)],
		d.ValueNotOption && strings.HasPrefix(val, "-"),
		d.ValueNeedsDigit && !hasClasses(val, true, false, false),
		d.MinEntropy > 0 && entropy(val) < d.MinEntropy:
		return false
	}
	return true
}

func group(m []int, s string, g int) string {
	if 2*g+1 >= len(m) || m[2*g] < 0 {
		return ""
	}
	return s[m[2*g]:m[2*g+1]]
}

// lazyRE compiles its pattern on first use: detectors run only when their
// hints appear, so most texts (and most hook processes) never compile most
// of them.
type lazyRE struct {
	pattern string
	once    sync.Once
	re      *regexp.Regexp
}

func lazy(pattern string) *lazyRE { return &lazyRE{pattern: pattern} }

func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.pattern) })
	return l.re
}
