package resources

import "strings"

// EncodedMark stands, in what LineWithout shows, for a word that a
// program of the line decodes to a credential.
const EncodedMark = "[encoded]"

// LineWithout is the shell line src as DequotedLine shows it, with every
// word that is one of from (or holds one, or is part of one, of eight
// bytes or more: the value of a variable set on the line and used in the
// word, a line of a here-document) shown as
// EncodedMark. It is what a human is shown of a line whose words decode
// to a credential: the words it was decoded from are the credential in
// another form. A word that is itself a script (bash -c '…') is shown
// the same way, a few levels deep. "" when src does not parse.
func LineWithout(src string, from []string) string { return lineWithout(src, from, 0) }

func lineWithout(src string, from []string, depth int) string {
	f, err := parseBash(src)
	if err != nil {
		return ""
	}
	words := strings.Split(strings.TrimSuffix(dequote(f, true, 0), "\x00"), "\x00")
	for i, w := range words {
		if contains(from, w) {
			words[i] = EncodedMark
			continue
		}
		if depth < 3 && strings.ContainsAny(w, " \t\n;|&") {
			if inner := lineWithout(w, from, depth+1); inner != "" {
				words[i] = inner
				continue
			}
		}
		if holdsAnyOf(w, from) {
			words[i] = EncodedMark
		}
	}
	return strings.Join(words, " ")
}

// holdsAnyOf reports whether w holds one of from, or one of from holds
// w, the one held eight bytes or more long (a here-document's line is
// part of its body).
func holdsAnyOf(w string, from []string) bool {
	for _, v := range from {
		if len(v) >= 8 && strings.Contains(w, v) || len(w) >= 8 && strings.Contains(v, w) {
			return true
		}
	}
	return false
}
