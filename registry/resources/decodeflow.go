package resources

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// decodeFlow is where one script's decoders (base64 -d, xxd -r, openssl
// enc -d, gpg -d, gunzip …) and network programs (curl, wget, nc, ssh …)
// sit. A decoder's output that reaches a network program on the line is
// something the gate cannot read (a file's content, a cipher text), so
// the line is held: see holdDecodedSends.
type decodeFlow struct {
	depth     int // the script's nesting: positions of one script are not comparable with another's
	decoders  []flowSite
	senders   []flowSite
	pipelines [][]posRange // each pipeline's stages, in order
	substs    []posRange   // command and process substitutions
	inner     map[*syntax.BinaryCmd]bool
}

// flowSite is one call of a decoder or a network program.
type flowSite struct {
	prog string
	at   posRange
}

type posRange struct{ from, to uint }

func rangeOf(n syntax.Node) posRange { return posRange{n.Pos().Offset(), n.End().Offset()} }

func (r posRange) holds(o posRange) bool { return r.from <= o.from && o.to <= r.to }

func (f *decodeFlow) decoder(prog string, c *syntax.CallExpr) {
	f.decoders = append(f.decoders, flowSite{prog, rangeOf(c)})
}

func (f *decodeFlow) sender(prog string, c *syntax.CallExpr) {
	f.senders = append(f.senders, flowSite{prog, rangeOf(c)})
}

func (f *decodeFlow) subst(from, to syntax.Pos) {
	f.substs = append(f.substs, posRange{from.Offset(), to.Offset()})
}

// pipeline records the stages of the pipeline b heads (a | b | c is
// parsed as nested pipes: the inner ones are part of the outer one).
func (f *decodeFlow) pipeline(b *syntax.BinaryCmd) {
	if b.Op != syntax.Pipe && b.Op != syntax.PipeAll || f.inner[b] {
		return
	}
	if f.inner == nil {
		f.inner = map[*syntax.BinaryCmd]bool{}
	}
	var stages []posRange
	var flatten func(s *syntax.Stmt)
	flatten = func(s *syntax.Stmt) {
		if in, ok := s.Cmd.(*syntax.BinaryCmd); ok && (in.Op == syntax.Pipe || in.Op == syntax.PipeAll) && len(s.Redirs) == 0 && !s.Negated && !s.Background && !s.Coprocess {
			f.inner[in] = true
			flatten(in.X)
			flatten(in.Y)
			return
		}
		stages = append(stages, rangeOf(s))
	}
	flatten(b.X)
	flatten(b.Y)
	f.pipelines = append(f.pipelines, stages)
}

// downstream reports whether what d decodes cannot reach n: both in this
// script, in one pipeline in which n's stage comes before d's, and d not
// inside a substitution within that pipeline (whose output would be an
// argument, anywhere). curl … | base64 -d > file is such a line.
func (f *decodeFlow) downstream(d, n flowSite) bool {
	var best []posRange
	for _, p := range f.pipelines {
		whole := posRange{p[0].from, p[len(p)-1].to}
		if whole.holds(d.at) && whole.holds(n.at) && (best == nil || posRange{best[0].from, best[len(best)-1].to}.holds(whole)) {
			best = p
		}
	}
	if best == nil {
		return false
	}
	stageOf := func(r posRange) int {
		for i, st := range best {
			if st.holds(r) {
				return i
			}
		}
		return -1
	}
	ds, ns := stageOf(d.at), stageOf(n.at)
	if ds < 0 || ns < 0 || ns >= ds {
		return false
	}
	for _, sub := range f.substs {
		if best[ds].holds(sub) && sub.holds(d.at) {
			return false
		}
	}
	return true
}

// holdDecodedSends holds the line when a decoder's output may reach a
// network program: both on the line, and not the one case the gate can
// order (a network program's output decoded downstream of it in one
// pipeline of one script).
func (a *analyzer) holdDecodedSends() {
	for i := range a.flows {
		for _, d := range a.flows[i].decoders {
			for j := range a.flows {
				for _, n := range a.flows[j].senders {
					if i == j && a.flows[i].downstream(d, n) {
						continue
					}
					a.holdOnce(Hold{Program: d.prog, Approval: "decode:" + d.prog, EveryCall: true,
						Reason: "the gate cannot tell what this sends: " + n.prog + " may send what " + d.prog + " decodes, which the line does not show"})
					return
				}
			}
		}
	}
}

// decoding is what a decoder call undoes: the codecs the scan can undo
// itself (none for a cipher or a compressor), and whether it reads an xxd
// dump.
type decoding struct {
	codecs []textCodec
	xxd    bool
}

// alwaysDecoders decode whatever their options: decompressors, gpg and
// age (gpg with no command decrypts what it is given), uudecode.
var alwaysDecoders = map[string]bool{
	"gpg": true, "gpg2": true, "age": true, "rage": true, "zcat": true, "gunzip": true,
	"bunzip2": true, "bzcat": true, "unxz": true, "xzcat": true, "unzstd": true, "zstdcat": true,
	"unlz4": true, "lz4cat": true, "unlzma": true, "lzcat": true, "uudecode": true,
}

// decompressors decode with -d or --decompress.
var decompressors = map[string]bool{"gzip": true, "bzip2": true, "xz": true, "zstd": true,
	"lz4": true, "brotli": true, "lzma": true}

// basencCodecs are basenc's encodings.
var basencCodecs = map[string]textCodec{"base64": codecBase64, "base64url": codecBase64,
	"base32": codecBase32, "base32hex": codecBase32Hex, "base16": codecHex,
	"base2msbf": codecBase2MSB, "base2lsbf": codecBase2LSB, "z85": codecZ85}

// decoderOf is what the call name args decodes, nil when it is no
// decoder.
func decoderOf(name string, args []string) *decoding {
	switch {
	case alwaysDecoders[name]:
		return &decoding{}
	case decompressors[name]:
		if hasShortOrLong(args, 'd', "decompress") || hasShortOrLong(args, 'd', "decode") {
			return &decoding{}
		}
	case name == "base64" || name == "base32":
		if hasShortOrLong(args, 'd', "decode") || name == "base64" && hasShortOrLong(args, 'D', "") {
			codec := codecBase64
			if name == "base32" {
				codec = codecBase32
			}
			return &decoding{codecs: []textCodec{codec}}
		}
	case name == "basenc":
		if hasShortOrLong(args, 'd', "decode") {
			return &decoding{codecs: basencChosen(args)}
		}
	case name == "xxd":
		for _, a := range args {
			if strings.HasPrefix(a, "-r") {
				return &decoding{codecs: []textCodec{codecHex}, xxd: true}
			}
		}
	case name == "openssl":
		for _, a := range args {
			if a == "-d" || a == "-decrypt" || a == "--decrypt" {
				return &decoding{codecs: []textCodec{codecBase64}}
			}
		}
	case name == "unzip":
		return &decoding{}
	case strings.HasPrefix(name, "python"):
		if contains(args, "-m") && contains(args, "base64") && hasShortOrLong(args, 'd', "decode") {
			return &decoding{codecs: []textCodec{codecBase64}}
		}
	}
	return nil
}

// basencChosen are the encodings basenc's options name (a unique prefix
// of a long option is the option); every one when none is named.
func basencChosen(args []string) []textCodec {
	var out []textCodec
	for _, a := range args {
		if !strings.HasPrefix(a, "--") || len(a) < 3 {
			continue
		}
		for long, c := range basencCodecs {
			if strings.HasPrefix(long, a[2:]) {
				out = append(out, c)
			}
		}
	}
	if len(out) == 0 {
		for c := textCodec(0); c < codecCount; c++ {
			out = append(out, c)
		}
	}
	return out
}

// hasShortOrLong reports whether args hold the short option letter
// (alone or in a cluster: -di) or a prefix of at least three letters of
// the long option (--dec for --decode), as getopt_long takes it.
func hasShortOrLong(args []string, short byte, long string) bool {
	for _, a := range args {
		switch {
		case a == "--":
			return false
		case strings.HasPrefix(a, "--"):
			if long != "" && len(a) >= 5 && strings.HasPrefix(long, a[2:]) {
				return true
			}
		case len(a) > 1 && a[0] == '-' && strings.IndexByte(a[1:], short) >= 0:
			return true
		}
	}
	return false
}

// netPrograms send data over the network they are given on the line or
// on their input.
var netPrograms = map[string]bool{
	"curl": true, "wget": true, "wget2": true, "nc": true, "ncat": true, "netcat": true, "socat": true,
	"telnet": true, "ssh": true, "scp": true, "sftp": true, "rsync": true, "ftp": true, "lftp": true,
	"tftp": true, "http": true, "https": true, "xh": true, "xhs": true, "aria2c": true, "gh": true,
	"mail":  true,
	"mailx": true, "sendmail": true, "mutt": true, "dig": true, "nslookup": true, "host": true,
	"whois": true, "ping": true, "grpcurl": true, "websocat": true, "s3cmd": true, "aws": true,
	"gcloud": true, "az": true, "rclone": true, "mosquitto_pub": true, "kubectl": true,
}

// sendsData reports whether the call name args may send data over the
// network.
func sendsData(name string, args []string) bool {
	switch name {
	case "openssl":
		return contains(args, "s_client")
	case "git":
		return contains(args, "push") || contains(args, "send-email") || contains(args, "ls-remote")
	}
	return netPrograms[name]
}
