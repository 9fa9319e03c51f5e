package conformance

import (
	"path"
	"strings"

	"github.com/leasedeck/leasedeck/schemas"
)

// unknownMember is the member the round-trip check adds: the same name the
// contract's reference runner uses, so the two checks are one check.
const unknownMember = "a_field_from_a_newer_writer"

// roundTrip checks property 3 of the contract's reference runner: a valid
// document that carries a member a newer writer added is still accepted,
// and leasedeck's parse → canonical bytes → parse path keeps the member.
// An older reader that silently strips a newer writer's data would break
// every hash and signature taken over it.
func (r *runner) roundTrip() {
	const sec = "fixtures/round-trip"
	const dir = "fixtures/valid"
	for _, n := range fixtureFiles(r.fsys, dir) {
		shape, known := shapeOf(n)
		if !known {
			r.add(sec, n, Unchecked, "schema %s.schema.json is not in the vendored schema set", strings.SplitN(n, ".", 2)[0])
			continue
		}
		v, err := r.readJSON(path.Join(dir, n))
		if err != nil {
			r.add(sec, n, Fail, "cannot read: %v", err)
			continue
		}
		obj, ok := v.(map[string]any)
		if !ok {
			r.add(sec, n, Fail, "not a JSON object")
			continue
		}
		obj[unknownMember] = "kept"
		if errs, err := schemas.Validate(shape, obj); err != nil || len(errs) > 0 {
			r.add(sec, n, Fail, "rejected once an unknown member was added: %v%v", err, errs)
			continue
		}
		canon, err := schemas.Canonical(obj)
		if err != nil {
			r.add(sec, n, Fail, "canonical bytes: %v", err)
			continue
		}
		back, err := schemas.ParseJSON(canon)
		if err != nil {
			r.add(sec, n, Fail, "canonical bytes do not parse: %v", err)
			continue
		}
		if m, ok := back.(map[string]any); !ok || m[unknownMember] != "kept" {
			r.add(sec, n, Fail, "the unknown member was lost in the round trip")
			continue
		}
		r.add(sec, n, Pass, "")
	}
}
