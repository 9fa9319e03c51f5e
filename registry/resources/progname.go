package resources

import (
	"path"
	"strings"
)

// programName is the name a command word runs under, as the gate matches it
// against allow.commands. A bare name is looked up in PATH and is that
// name. A word with a slash runs that file: it is the program's basename
// only when the file sits in a directory the current user cannot write
// (/usr/bin/git is git); any other path (./src/ls, ~/bin/ls, /tmp/ls,
// src/../ls) is reported as the path itself, which no allow.commands entry
// can name, so an executable planted where the agent can write never passes
// as the program it is named after.
func programName(word string) string {
	if !strings.Contains(word, "/") {
		return word
	}
	if strings.HasPrefix(word, "/") && path.Clean(word) == word && !userWritable(word) && !userWritable(path.Dir(word)) {
		return path.Base(word)
	}
	return word // as written: it keeps its slash, so no entry matches it
}
