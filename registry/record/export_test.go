package record

// CapsError reports a capped member whose cap could not be read from the
// embedded schemas (a test holds this to nil).
func CapsError() error {
	if _, err := capsOnce(); err != nil {
		return err
	}
	_, err := maxTokensOnce()
	return err
}

// DetailNames lists the string members of the vocabulary (for tests that
// walk every free-text field).
func DetailNames() []string {
	out := make([]string, len(detailStrings))
	for i, f := range detailStrings {
		out[i] = f.name
	}
	return out
}
