package resources

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Decoded is text a program of a shell line prints from the line's own
// words once it runs, where that differs from the words: what echo -e and
// printf make of escapes and conversions, what base64 -d, base32 -d,
// basenc -d and xxd -r make of encoded text, what tr with literal sets
// and rev make of any text of the line, each applied to the others'
// output a few times over. It is scanned for secrets, never judged: a
// credential written \x67hp_… or Z2hwX… is held like one written whole.
// From are the words the text was made from, so that what a human is
// shown can leave them out.
type Decoded struct {
	Text string
	From []string
}

// maxDecodedBytes bounds what the decoding of one line makes. A line
// that would make more is held (see decodeScan.finish): ordinary lines
// make a few bytes, and text past a bound must not pass unscanned.
const maxDecodedBytes = 512 << 10

// decodeRounds is how often the decoders are applied to each other's
// output (echo … | rev | base64 -d | tr … is three).
const decodeRounds = 3

// decodeTriggers are the words of a line that make it worth decoding:
// the programs decodeScan reads (echo only with a backslash on the line,
// which is all it decodes).
var decodeTriggers = map[string]bool{
	"printf": true, "echo": true, "base64": true, "base32": true, "basenc": true, "xxd": true,
	"tr": true, "rev": true, "openssl": true, "gpg": true, "gpg2": true, "age": true, "rage": true,
	"zcat": true, "gunzip": true, "gzip": true, "bzip2": true, "bunzip2": true, "bzcat": true,
	"xz": true, "unxz": true, "xzcat": true, "zstd": true, "unzstd": true, "zstdcat": true,
	"lz4": true, "unlz4": true, "lz4cat": true, "brotli": true, "lzma": true, "unlzma": true,
	"lzcat": true, "uudecode": true, "unzip": true,
}

// mayDecode reports whether src names a program decodeScan reads: one
// pass over its words, so that a line without one costs next to nothing.
func mayDecode(src string) bool {
	backslash := strings.IndexByte(src, '\\') >= 0
	start := -1
	for i := 0; i <= len(src); i++ {
		if i < len(src) && wordByte(src[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start >= 2 && i-start <= 8 && triggerFirst[src[start]] {
			if w := src[start:i]; decodeTriggers[w] && (w != "echo" || backslash) {
				return true
			}
		}
		start = -1
	}
	return false
}

// triggerFirst are the first letters of decodeTriggers: a word starting
// with another is passed over without a look-up.
var triggerFirst = func() (set [256]bool) {
	for w := range decodeTriggers {
		set[w[0]] = true
	}
	return set
}()

func wordByte(c byte) bool {
	return isAlnum(c) || c == '_' || c == '-'
}

// decodeScan gathers, for one script, the words of the script, what echo
// and printf print of them, the decoders the script runs, and where
// decoders and network programs sit (see decodeflow.go).
type decodeScan struct {
	d       dequoter
	words   []string      // the value of every word, by index
	outputs []decodedText // what echo and printf print
	bytes   int           // what outputs and the transforms made
	over    bool          // maxDecodedBytes was reached
	codecs  [codecCount]bool
	xxdDump bool
	trs     []trProgram
	rev     bool
	escapes bool // echo or printf runs: escapes in decoded text are read
	flow    decodeFlow
}

// decodedText is a text made from the words at roots.
type decodedText struct {
	text  string
	roots []int
}

// decodeScript scans f, the script at depth depth, when src may hold
// something to decode: what the line decodes to joins a.use.Decoded, and
// where its decoders and network programs are joins a.flow.
func (a *analyzer) decodeScript(src string, f *syntax.File, depth int) {
	if !mayDecode(src) {
		return
	}
	// Sized for a word in every few bytes, so that a long line's words
	// are recorded without the list growing step by step.
	n := min(len(src)/4, maxPresizedWords)
	s := &decodeScan{d: dequoter{vars: map[string]string{}}, words: make([]string, 0, n)}
	s.flow.depth = depth
	syntax.Walk(f, s.visit)
	a.use.Decoded = append(a.use.Decoded, s.decoded()...)
	if s.over {
		a.holdOnce(Hold{Program: "shell", Approval: "decode:shell", EveryCall: true,
			Reason: "the gate cannot tell what this prints: decoding the line makes more than 512 KiB to scan for secrets"})
	}
	a.flows = append(a.flows, s.flow)
}

// maxPresizedWords bounds what decodeScript sets aside for a line's words
// before it has seen them.
const maxPresizedWords = 1 << 14

func (s *decodeScan) visit(n syntax.Node) bool {
	switch n := n.(type) {
	case *syntax.Assign:
		if n.Name != nil && n.Value != nil && !n.Append {
			s.d.vars[n.Name.Value] = s.d.capped(s.d.word(n.Value))
		}
	case *syntax.Redirect:
		if n.Hdoc != nil {
			// The body is recorded as the program reads it, not as a
			// word; what lies inside it is walked.
			s.add(s.heredoc(n))
			if n.Word != nil {
				syntax.Walk(n.Word, s.visit)
			}
			for _, p := range n.Hdoc.Parts {
				syntax.Walk(p, s.visit)
			}
			return false
		}
	case *syntax.Word:
		s.register(n)
	case *syntax.CallExpr:
		// call records the arguments; what lies inside them (a
		// substitution, say) is walked here, each word recorded once.
		s.call(n)
		for _, as := range n.Assigns {
			syntax.Walk(as, s.visit)
		}
		for _, w := range n.Args {
			for _, p := range w.Parts {
				syntax.Walk(p, s.visit)
			}
		}
		return false
	case *syntax.BinaryCmd:
		s.flow.pipeline(n)
	case *syntax.CmdSubst:
		s.flow.subst(n.Pos(), n.End())
	case *syntax.ProcSubst:
		s.flow.subst(n.Pos(), n.End())
	}
	return true
}

// add records a word's value and returns its index.
func (s *decodeScan) add(v string) int {
	s.words = append(s.words, v)
	return len(s.words) - 1
}

// register records w's value and returns its index. Every word is
// recorded once: visit does not walk into a call's arguments as words.
func (s *decodeScan) register(w *syntax.Word) int { return s.add(s.d.word(w)) }

// heredoc is a here-document's body as the program reads it: as written
// when its delimiter is quoted, else with the escapes of an unquoted one
// removed and the variables the line set replaced.
func (s *decodeScan) heredoc(r *syntax.Redirect) string {
	quoted := r.Word == nil || !written(r.Word)
	var b strings.Builder
	for _, part := range r.Hdoc.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if quoted {
				b.WriteString(p.Value)
			} else {
				b.WriteString(unescapeDouble(p.Value, false))
			}
		case *syntax.ParamExp:
			b.WriteString(s.d.param(p))
		}
	}
	return b.String()
}

// call reads one simple command: the program, past any wrapper (env,
// timeout, xargs, command …), and what it prints or decodes.
func (s *decodeScan) call(c *syntax.CallExpr) {
	vals := make([]string, len(c.Args))
	idx := make([]int, len(c.Args))
	for i, w := range c.Args {
		idx[i] = s.register(w)
		vals[i] = s.words[idx[i]]
	}
	wrapped := false
	for i := range vals {
		name := path.Base(vals[i])
		if s.program(name, vals[i+1:], idx[i+1:], c) {
			return
		}
		switch {
		case decodeWrappers[name]:
			wrapped = true
		case !wrapped:
			return // the program is no wrapper: the rest are its arguments
		}
	}
}

// decodeWrappers run the program named among their arguments.
var decodeWrappers = map[string]bool{
	"env": true, "command": true, "builtin": true, "exec": true, "nohup": true, "nice": true,
	"time": true, "timeout": true, "stdbuf": true, "setsid": true, "xargs": true, "sudo": true,
	"doas": true, "ionice": true, "chrt": true, "taskset": true, "flock": true, "unbuffer": true,
	"watch": true, "strace": true, "ltrace": true, "busybox": true, "toybox": true, "torsocks": true,
	"proxychains": true, "proxychains4": true, "firejail": true, "noglob": true, "nocorrect": true,
	"find": true, "parallel": true, "script": true,
}

// program reads a call of name with args: true when name is a program
// decodeScan knows.
func (s *decodeScan) program(name string, args []string, idx []int, c *syntax.CallExpr) bool {
	known := true
	switch name {
	case "echo":
		s.escapes = true
		s.output(echoOutput(args), idx, true)
	case "printf":
		s.escapes = true
		out, full := printfOutput(args, maxDecodedBytes-s.bytes)
		s.output(out, idx, full)
	case "tr":
		if t, ok := newTrProgram(args); ok {
			s.trs = append(s.trs, t)
		}
	case "rev":
		s.rev = true
	default:
		known = false
	}
	if dec := decoderOf(name, args); dec != nil {
		known = true
		for _, codec := range dec.codecs {
			s.codecs[codec] = true
		}
		s.xxdDump = s.xxdDump || dec.xxd
		s.flow.decoder(name, c)
	}
	if sendsData(name, args) {
		known = true
		s.flow.sender(name, c)
	}
	return known
}

// output records what echo or printf prints of the words at idx.
func (s *decodeScan) output(out string, idx []int, full bool) {
	s.bytes += len(out)
	s.over = s.over || !full || s.bytes > maxDecodedBytes
	s.outputs = append(s.outputs, decodedText{text: out, roots: idx})
}

// decoded is what the script decodes to: what echo and printf print, and
// what the transforms the script runs make of it and of every word, a
// few rounds over. Only texts that differ from the words are kept.
func (s *decodeScan) decoded() []Decoded {
	transforms := s.transforms()
	var made []decodedText
	seen := map[string]bool{}
	for _, w := range s.words {
		seen[w] = true
	}
	keep := func(t decodedText) bool {
		if t.text == "" || seen[t.text] {
			return false
		}
		seen[t.text] = true
		made = append(made, t)
		return true
	}
	frontier := make([]decodedText, 0, len(s.words)+len(s.outputs))
	for i, w := range s.words {
		frontier = append(frontier, decodedText{text: w, roots: []int{i}})
	}
	for _, o := range s.outputs {
		if keep(o) {
			frontier = append(frontier, o)
		}
	}
	for round := 0; round < decodeRounds && len(transforms) > 0 && !s.over; round++ {
		var next []decodedText
		for _, t := range frontier {
			for _, tf := range transforms {
				out := tf(t.text)
				if s.bytes += len(out); s.bytes > maxDecodedBytes {
					s.over = true
					break
				}
				if keep(decodedText{text: out, roots: t.roots}) {
					next = append(next, made[len(made)-1])
				}
			}
		}
		frontier = next
	}
	return s.export(made)
}

// transforms are what the script's decoders do to a text.
func (s *decodeScan) transforms() []func(string) string {
	var tfs []func(string) string
	for c := textCodec(0); c < codecCount; c++ {
		if s.codecs[c] {
			tfs = append(tfs, c.decodeRuns)
		}
	}
	if s.xxdDump {
		tfs = append(tfs, func(t string) string { return codecHex.decodeRuns(xxdDumpData(t)) })
	}
	for _, t := range s.trs {
		tfs = append(tfs, t.apply)
	}
	if s.rev {
		tfs = append(tfs, reverseLines)
	}
	if s.escapes {
		tfs = append(tfs, func(t string) string {
			out, _ := decodeEscapes(t, escapePercentB)
			return out
		})
	}
	return tfs
}

// export turns made into Decoded, each with the words it was made from.
func (s *decodeScan) export(made []decodedText) []Decoded {
	out := make([]Decoded, 0, len(made))
	for _, t := range made {
		from := make([]string, 0, len(t.roots))
		for _, r := range t.roots {
			if w := s.words[r]; w != "" && !contains(from, w) {
				from = append(from, w)
			}
		}
		out = append(out, Decoded{Text: t.text, From: from})
	}
	return out
}

// holdOnce adds h unless a hold of the same approval is there.
func (a *analyzer) holdOnce(h Hold) {
	for _, x := range a.use.Holds {
		if x.Approval == h.Approval && x.Reason == h.Reason {
			return
		}
	}
	a.use.Holds = append(a.use.Holds, h)
}
