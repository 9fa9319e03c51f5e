package redact

import (
	"regexp"
	"strings"
	"testing"
)

// Every rule in rules.json carries texts it must find and texts nothing may
// change; this runs them all, so a rule cannot be added, loosened or
// tightened without its examples saying what it does.
func TestRulesFixtures(t *testing.T) {
	v := rules()
	type fixture struct {
		kind    string
		finds   []Example
		ignores []string
	}
	all := []fixture{{v.runs.Kind + " (runs)", v.runs.Finds, v.runs.Ignores}}
	for _, d := range v.detectors {
		all = append(all, fixture{d.Kind, d.Finds, d.Ignores})
	}
	for _, f := range all {
		if len(f.finds) == 0 || len(f.ignores) == 0 {
			t.Errorf("%s: a rule needs at least one text it finds and one it ignores (finds %d, ignores %d)", f.kind, len(f.finds), len(f.ignores))
		}
		kind := strings.TrimSuffix(f.kind, " (runs)")
		for _, ex := range f.finds {
			if ex.Secret == "" || !strings.Contains(ex.Text, ex.Secret) {
				t.Errorf("%s: fixture %q does not contain its secret %q", f.kind, ex.Text, ex.Secret)
				continue
			}
			got, fs := Redact(ex.Text)
			if strings.Contains(got, ex.Secret) {
				t.Errorf("%s: %q → %q keeps the secret", f.kind, ex.Text, got)
			}
			named := false
			for _, fd := range fs {
				named = named || fd.Kind == kind
			}
			if !named {
				t.Errorf("%s: %q found as %v, not as %s", f.kind, ex.Text, fs, kind)
			}
		}
		for _, s := range f.ignores {
			if got, fs := Redact(s); got != s {
				t.Errorf("%s: ignored text %q changed to %q (%v)", f.kind, s, got, fs)
			}
		}
	}
}

// A hint is a literal every match contains: otherwise a text holding a
// secret but none of the hints would never be searched.
func TestRulesHintsAreInEveryMatch(t *testing.T) {
	for _, d := range rules().detectors {
		if d.keyword != notKeyword {
			continue
		}
		for _, ex := range d.Finds {
			m := d.re.get().FindString(ex.Text)
			if m == "" {
				t.Errorf("%s: pattern does not match its own fixture %q", d.Kind, ex.Text)
				continue
			}
			if !containsAny(strings.ToLower(m), d.Hints) {
				t.Errorf("%s: match %q holds none of the hints %q", d.Kind, m, d.Hints)
			}
		}
	}
}

// The keywords are the literals the keyword detectors' keys must contain.
func TestRulesKeywordsCoverKeyPatterns(t *testing.T) {
	v := rules()
	alternation := regexp.MustCompile(`\(\?:([a-z|]+)\)`)
	for _, d := range v.detectors {
		if d.keyword == notKeyword {
			continue
		}
		m := alternation.FindStringSubmatch(d.Pattern)
		if m == nil {
			t.Errorf("%s: no keyword alternation in %s", d.Kind, d.Pattern)
			continue
		}
		for _, w := range strings.Split(m[1], "|") {
			if !contains(v.keywords, w) {
				t.Errorf("%s: key word %q is not in keywords %q", d.Kind, w, v.keywords)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A broken rules file is an error naming the field, not a silent gap.
func TestParseRulesErrors(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"detectors":[{"kind":"x","pattern":"a","keyword":"sideways"}],"runs":{"min_length":40}}`, "/detectors/0/keyword"},
		{`{"detectors":[{"kind":"x","pattern":"a"}],"runs":{"min_length":40}}`, "/detectors/0/hints"},
		{`{"detectors":[{"kind":"x","pattern":"a","hints":["AB"]}],"runs":{"min_length":40}}`, "not lower case"},
		{`{"detectors":[{"pattern":"a","hints":["a"]}],"runs":{"min_length":40}}`, "kind and pattern"},
		{`{"detectors":[],"runs":{}}`, "/runs/min_length"},
		{`{"detectors":`, "unexpected end"},
	} {
		if _, err := parseRules([]byte(c.json)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.json, err, c.want)
		}
	}
}

// Parsing the rules is part of a hook process's first redaction: it must
// stay small beside the process itself (milliseconds).
func BenchmarkParseRules(b *testing.B) {
	for b.Loop() {
		if _, err := parseRules(rulesJSON); err != nil {
			b.Fatal(err)
		}
	}
}
