package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/leasedeck/leasedeck/registry/wire"
)

// idKind names what an id refers to, and how to list the ids of that kind.
type idKind struct {
	noun string
	list func(c *wire.Client) ([]string, error)
}

var (
	leaseIDs = idKind{"lease", func(c *wire.Client) ([]string, error) {
		res, err := c.Leases(context.Background())
		ids := make([]string, 0, len(res.Leases))
		for _, l := range res.Leases {
			ids = append(ids, l.ID)
		}
		return ids, err
	}}
	approvalIDs = idKind{"approval", func(c *wire.Client) ([]string, error) {
		res, err := c.Approvals(context.Background())
		ids := make([]string, 0, len(res.Pending))
		for _, a := range res.Pending {
			ids = append(ids, a.ID)
		}
		return ids, err
	}}
)

// resolveID expands a prefix of an id (the 8 characters the cockpit and
// `leases` show) to the one id it names, as git does with hashes: a whole
// id stands for itself, a prefix of exactly one id becomes that id, a
// prefix of several is an error listing them. A prefix of none is passed
// on as given, so the registry answers it (an approval already decided is
// no longer listed, and its whole id still earns "already decided").
// The registry alone decides what the id may do; this only spells it out.
func resolveID(c *wire.Client, kind idKind, given string) (string, error) {
	if given == "" {
		return "", nil
	}
	ids, err := kind.list(c)
	if err != nil {
		return "", err
	}
	var matches []string
	for _, id := range ids {
		if id == given {
			return id, nil
		}
		if strings.HasPrefix(id, given) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 0:
		return given, nil
	case 1:
		return matches[0], nil
	}
	sort.Strings(matches)
	return "", fmt.Errorf("%s id %q is ambiguous: it begins %d ids:\n  %s", kind.noun, given, len(matches), strings.Join(matches, "\n  "))
}

// resolveIDs resolves each *id in place; on error it prints the problem
// and returns its exit code (1 for an ambiguous id), else exitOK.
func resolveIDs(c *wire.Client, e *env, kind idKind, ids ...*string) int {
	for _, p := range ids {
		full, err := resolveID(c, kind, *p)
		if err != nil {
			if strings.Contains(err.Error(), "is ambiguous") {
				e.errorf("%v", err)
				return exitInvalid
			}
			return callExit(err, e)
		}
		*p = full
	}
	return exitOK
}
