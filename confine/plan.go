package confine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ErrUnsupported is answered on an OS without Landlock.
var ErrUnsupported = errors.New("confined mode is not available on this OS")

// StageArg is the hidden first argument that makes leasedeck the
// confinement stage (see stage_linux.go).
const StageArg = "__leasedeck-confine-stage"

// Access is a class of rights on a hierarchy, mapped onto Landlock rights
// by the Linux part.
type Access uint8

const (
	Read  Access = 1 << iota // read files, list directories
	Write                    // create, write, truncate, remove, rename within
	Exec                     // execute files
	Dev                      // read, write and ioctl on device nodes
	// listOnly: list a directory without reading the files beneath it
	// (only narrowing above a hidden path produces it).
	listOnly Access = 1 << 7
)

func (a Access) String() string {
	var b strings.Builder
	for _, x := range []struct {
		bit  Access
		name string
	}{{Read, "r"}, {Write, "w"}, {Exec, "x"}, {Dev, "d"}} {
		if a&x.bit != 0 {
			b.WriteString(x.name)
		}
	}
	return b.String()
}

// Rule grants Access beneath Path (a directory) or on Path (a file).
type Rule struct {
	Path   string `json:"path"`
	Access Access `json:"access"`
	File   bool   `json:"file,omitempty"`
}

// Bind is one mount the namespace stage makes before Landlock applies:
// a read-only bind of Path onto itself, or, with Mask, a mode-000 empty
// file or directory bound read-only over it.
type Bind struct {
	Path string `json:"path"`
	Mask bool   `json:"mask,omitempty"`
	Dir  bool   `json:"dir,omitempty"`
}

// Spec is what a confinement is built from. Paths are absolute; symlinks
// are resolved by Build, because Landlock and mounts act on the resolved
// inode, not on the name.
type Spec struct {
	Rules     []Rule   // everything granted
	Protect   []string // never writable (stay readable where granted)
	Hide      []string // never readable nor writable
	Namespace bool     // a private mount namespace is available
	// Placeholders lets Build create a missing protected path that lies
	// in a writable hierarchy (an empty directory, or "{}" for a .json
	// file, "" otherwise), so that a read-only bind can hold it; without
	// it, or without the namespace, the hierarchy is narrowed instead.
	Placeholders bool
}

// Plan is a built confinement, ready for the Linux stage to apply.
type Plan struct {
	Rules    []Rule   `json:"rules"`
	Binds    []Bind   `json:"binds,omitempty"`
	Narrowed []string `json:"narrowed,omitempty"` // hierarchies granted entry by entry
	// Created lists the placeholders Build made; Cleanup removes those
	// still as they were made.
	Created []Placeholder `json:"created,omitempty"`
}

// Placeholder is a protected path Build created so that it could be
// bound read-only.
type Placeholder struct {
	Path    string `json:"path"`
	Dir     bool   `json:"dir,omitempty"`
	Content string `json:"content,omitempty"`
}

// maxRules bounds narrowing: a carve-out in a huge flat directory would
// need a rule per entry; past this the run is refused, never widened.
const maxRules = 4096

// Build resolves the spec into rules and binds. A protected or hidden
// path inside a granted hierarchy is carved out with a bind when it exists
// and the namespace is available, else by narrowing the hierarchy.
func Build(spec Spec) (Plan, error) {
	var rules []Rule
	for _, r := range spec.Rules {
		p, ok := resolve(r.Path)
		if !ok {
			continue // Landlock needs an existing inode; a missing grant grants nothing
		}
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		rules = append(rules, Rule{Path: p, Access: r.Access, File: !st.IsDir()})
	}
	carves := carveOuts(spec)
	var plan Plan
	var narrow []carve
	for _, c := range carves {
		if !c.exists && !c.hide && spec.Namespace && spec.Placeholders && covered(rules, c) {
			if ph, ok := makePlaceholder(c.path); ok {
				plan.Created = append(plan.Created, ph)
				c.exists, c.dir = true, ph.Dir
			}
		}
		if c.exists && spec.Namespace && covered(rules, c) {
			plan.Binds = append(plan.Binds, Bind{Path: c.path, Mask: c.hide, Dir: c.dir})
			continue
		}
		narrow = append(narrow, c)
	}
	plan.Binds = dropMasked(plan.Binds)
	out, narrowed, err := narrowAll(rules, narrow)
	if err != nil {
		return Plan{}, err
	}
	plan.Rules, plan.Narrowed = out, narrowed
	return plan, nil
}

// dropMasked drops the binds beneath a masked directory: nothing beneath
// the mask can be reached, and a mount there would find no mount point.
// binds are sorted by path, so a parent comes before its children.
func dropMasked(binds []Bind) []Bind {
	var out []Bind
	var masked []string
	for _, b := range binds {
		under := false
		for _, m := range masked {
			under = under || within(b.Path, m)
		}
		if under {
			continue
		}
		if b.Mask && b.Dir {
			masked = append(masked, b.Path)
		}
		out = append(out, b)
	}
	return out
}

// carve is one path to take out of the grants.
type carve struct {
	path   string
	hide   bool // never readable (else: never writable)
	exists bool
	dir    bool
}

// carveOuts resolves the protected and hidden paths. A missing path is
// replaced by its shallowest missing component: only narrowing can keep
// it from being created, and it must be kept from being created at all.
func carveOuts(spec Spec) []carve {
	byPath := map[string]*carve{}
	add := func(p string, hide bool) {
		if !filepath.IsAbs(p) {
			return
		}
		p = filepath.Clean(p)
		rp, exists := resolveOrFirstMissing(p)
		if hide && !exists {
			return // nothing to read there yet; creating it reveals nothing
		}
		c := byPath[rp]
		if c == nil {
			c = &carve{path: rp, exists: exists}
			if st, err := os.Lstat(rp); err == nil {
				c.dir = st.IsDir()
			}
			byPath[rp] = c
		}
		c.hide = c.hide || hide
	}
	for _, p := range spec.Protect {
		add(p, false)
	}
	for _, p := range spec.Hide {
		add(p, true)
	}
	out := make([]carve, 0, len(byPath))
	for _, c := range byPath {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// covered reports whether a rule grants what the carve-out takes away.
func covered(rules []Rule, c carve) bool {
	for _, r := range rules {
		if within(c.path, r.Path) && (r.Access&Write != 0 || (c.hide && r.Access&Read != 0)) {
			return true
		}
	}
	return false
}

// narrowAll rewrites every rule that covers a carve-out. A rule at or
// below a carve-out loses what the carve-out forbids; a rule above one
// is replaced by rules on its entries (see narrow).
func narrowAll(rules []Rule, carves []carve) ([]Rule, []string, error) {
	var out []Rule
	var narrowed []string
	for _, r := range rules {
		var inside []carve
		lost := Access(0)
		for _, c := range carves {
			switch {
			case within(r.Path, c.path): // the rule is the carve-out or below it
				lost |= forbidden(c)
			case within(c.path, r.Path):
				if r.Access&forbidden(c) != 0 {
					inside = append(inside, c)
				}
			}
		}
		acc := r.Access &^ lost
		if acc == 0 {
			continue
		}
		if len(inside) == 0 || r.File {
			out = append(out, Rule{Path: r.Path, Access: acc, File: r.File})
			continue
		}
		var err error
		out, err = narrow(out, r.Path, acc, inside)
		if err != nil {
			return nil, nil, err
		}
		narrowed = append(narrowed, r.Path)
	}
	if len(out) > maxRules {
		return nil, nil, fmt.Errorf("confining needs %d kernel rules (limit %d): a protected path sits in a very large directory; narrow write_paths/read_paths", len(out), maxRules)
	}
	return out, narrowed, nil
}

// forbidden is what a carve-out takes away.
func forbidden(c carve) Access {
	if c.hide {
		return Read | Write | Exec | Dev
	}
	return Write
}

// narrow grants acc on dir's entries except the carve-outs, recursing into
// the entries that contain one. dir itself keeps only what no carve-out
// below it forbids, minus writing (which would let a carved-out name be
// created or replaced) and, above a hidden path, reading files.
// Symbolic links are skipped: a rule on one would land on its target.
func narrow(out []Rule, dir string, acc Access, carves []carve) ([]Rule, error) {
	own := acc &^ (Write | Dev)
	if hasHidden(carves) {
		// Read and Exec on a directory cover every file beneath it; above
		// a hidden path only listing (names) is kept.
		own &^= Read | Exec
		if acc&Read != 0 {
			own |= listOnly
		}
	}
	if own != 0 {
		out = append(out, Rule{Path: dir, Access: own})
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return out, nil // unreadable: nothing beneath can be granted
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if e.Type()&os.ModeSymlink != 0 {
			continue
		}
		entry, below, hidden := acc, []carve(nil), false
		for _, c := range carves {
			switch {
			case c.path == p && c.hide:
				hidden = true
			case c.path == p:
				entry &^= Write // protected: readable, never writable
			case within(c.path, p):
				below = append(below, c)
			}
		}
		if hidden || entry == 0 {
			continue
		}
		if len(below) > 0 && e.IsDir() {
			if out, err = narrow(out, p, entry, below); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, Rule{Path: p, Access: entry, File: !e.IsDir()})
		if len(out) > maxRules {
			return nil, fmt.Errorf("confining %s needs more than %d kernel rules; narrow write_paths/read_paths", dir, maxRules)
		}
	}
	return out, nil
}

func hasHidden(cs []carve) bool {
	for _, c := range cs {
		if c.hide {
			return true
		}
	}
	return false
}

// within reports whether p is dir or lies beneath it.
func within(p, dir string) bool {
	if p == dir || dir == "/" {
		return true
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// resolve makes p absolute with its symlinks resolved; ok is false when
// it does not exist.
func resolve(p string) (string, bool) {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	r, err = filepath.Abs(r)
	return r, err == nil
}

// resolveOrFirstMissing resolves p; when p does not exist it answers the
// shallowest missing component under p's deepest existing ancestor
// (resolved), and exists=false.
func resolveOrFirstMissing(p string) (string, bool) {
	if r, ok := resolve(p); ok {
		return r, true
	}
	missing := p
	for parent := filepath.Dir(p); ; parent = filepath.Dir(parent) {
		if r, ok := resolve(parent); ok {
			return filepath.Join(r, filepath.Base(missing)), false
		}
		if parent == filepath.Dir(parent) {
			return p, false
		}
		missing = parent
	}
}

// makePlaceholder creates a missing protected path: a directory, unless
// the name looks like a file (it has an extension).
func makePlaceholder(p string) (Placeholder, bool) {
	ext := filepath.Ext(p)
	if ext == "" || ext == filepath.Base(p) {
		if err := os.Mkdir(p, 0o755); err != nil {
			return Placeholder{}, false
		}
		return Placeholder{Path: p, Dir: true}, true
	}
	content := placeholderContent(p)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return Placeholder{}, false
	}
	_, werr := f.WriteString(content)
	if cerr := f.Close(); werr != nil || cerr != nil {
		os.Remove(p)
		return Placeholder{}, false
	}
	return Placeholder{Path: p, Content: content}, true
}

// Cleanup removes the placeholders that are still as Build made them (an
// empty directory, a file with the placeholder content).
func (p Plan) Cleanup() {
	for i := len(p.Created) - 1; i >= 0; i-- {
		ph := p.Created[i]
		if ph.Dir {
			os.Remove(ph.Path) // fails, and keeps it, when not empty
			continue
		}
		if b, err := os.ReadFile(ph.Path); err == nil && string(b) == ph.Content {
			os.Remove(ph.Path)
		}
	}
}
