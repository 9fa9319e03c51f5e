package redact

// ContainsSecret reports whether Redact would change s.
func ContainsSecret(s string) bool { return len(findSpans(s)) > 0 }
