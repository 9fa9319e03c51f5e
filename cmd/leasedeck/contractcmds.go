package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/leasedeck/leasedeck/conformance"
	"github.com/leasedeck/leasedeck/contract"
	"github.com/leasedeck/leasedeck/registry"
	"github.com/leasedeck/leasedeck/schemas"
)

// runValidate: leasedeck validate --shape SHAPE FILE|-
func runValidate(args []string, e *env) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	shapeName := fs.String("shape", "", "document shape: "+shapeNames())
	pos, ok := parseFlags(fs, args, e)
	if !ok {
		return exitUsage
	}
	if *shapeName == "" || len(pos) != 1 {
		e.errorf("usage: leasedeck validate --shape SHAPE FILE|-")
		return exitUsage
	}
	shape, err := schemas.ParseShape(*shapeName)
	if err != nil {
		e.errorf("%v", err)
		return exitUsage
	}
	data, label, err := readInput(pos[0], e)
	if err != nil {
		e.errorf("%v", err)
		return exitInvalid
	}
	v, errs, err := schemas.ValidateJSON(shape, data)
	if err != nil {
		fmt.Fprintf(e.stdout, "/ json %v\n", err)
		return exitInvalid
	}
	_ = v
	if len(errs) == 0 {
		fmt.Fprintf(e.stdout, "%s: valid %s\n", label, shape)
		return exitOK
	}
	for _, x := range errs {
		fmt.Fprintln(e.stdout, x.String())
	}
	return exitInvalid
}

func shapeNames() string {
	var n []string
	for _, s := range schemas.Shapes() {
		n = append(n, string(s))
	}
	return strings.Join(n, ", ")
}

// runCanon: leasedeck canon [FILE|-]
func runCanon(args []string, e *env) int {
	fs := flag.NewFlagSet("canon", flag.ContinueOnError)
	hash := fs.Bool("sha256", false, "print the SHA-256 of the canonical bytes instead")
	pos, ok := parseFlags(fs, args, e)
	if !ok {
		return exitUsage
	}
	if len(pos) > 1 {
		e.errorf("usage: leasedeck canon [--sha256] [FILE|-]")
		return exitUsage
	}
	name := "-"
	if len(pos) == 1 {
		name = pos[0]
	}
	data, label, err := readInput(name, e)
	if err != nil {
		e.errorf("%v", err)
		return exitInvalid
	}
	c, err := schemas.CanonicalJSON(data)
	if err != nil {
		e.errorf("%s: %v", label, err)
		return exitInvalid
	}
	if *hash {
		fmt.Fprintln(e.stdout, schemas.SHA256Hex(c))
		return exitOK
	}
	e.stdout.Write(c)
	return exitOK
}

// readManifest reads, parses and schema-checks a manifest file, printing
// every violation with its JSON pointer.
func readManifest(name, role string, e *env) (*registry.Manifest, bool) {
	data, label, err := readInput(name, e)
	if err != nil {
		e.errorf("%s: %v", role, err)
		return nil, false
	}
	v, errs, err := schemas.ValidateJSON(schemas.Manifest, data)
	if err != nil {
		e.errorf("%s %s: %v", role, label, err)
		return nil, false
	}
	if len(errs) > 0 {
		e.errorf("%s %s is not a valid agent-lease-manifest:", role, label)
		for _, x := range errs {
			fmt.Fprintf(e.stderr, "  %s\n", x)
		}
		return nil, false
	}
	m, err := registry.ParseManifest(v)
	if err != nil {
		e.errorf("%s %s: %v", role, label, err)
		return nil, false
	}
	return m, true
}

// runNarrow: leasedeck narrow --parent PARENT.json DECLARED.json
func runNarrow(args []string, e *env) int {
	fs := flag.NewFlagSet("narrow", flag.ContinueOnError)
	parentPath := fs.String("parent", "", "the parent's granted manifest, with its remaining budget")
	pos, ok := parseFlags(fs, args, e)
	if !ok {
		return exitUsage
	}
	if *parentPath == "" || len(pos) != 1 {
		e.errorf("usage: leasedeck narrow --parent PARENT.json DECLARED.json|-")
		return exitUsage
	}
	if *parentPath == "-" && pos[0] == "-" {
		e.errorf("only one of PARENT and DECLARED can be read from stdin")
		return exitUsage
	}
	parent, ok := readManifest(*parentPath, "parent", e)
	if !ok {
		return exitInvalid
	}
	declared, ok := readManifest(pos[0], "declared", e)
	if !ok {
		return exitInvalid
	}
	n := registry.Narrow(declared, parent)
	if n.Refused() {
		out, _ := schemas.Pretty(map[string]any{"refusals": anyStrings(n.Refusals), "reason": n.Reason()})
		e.stdout.Write(out)
		return exitRefused
	}
	out, err := schemas.Pretty(map[string]any{"granted": n.Granted.Raw, "diff": n.Diff.JSON()})
	if err != nil {
		e.errorf("%v", err)
		return exitInvalid
	}
	e.stdout.Write(out)
	return exitOK
}

func anyStrings(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// runVerify: leasedeck verify --key KEYFILE [--conformance] LEASE.json|-
func runVerify(args []string, e *env) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	keyPath := fs.String("key", "", "file holding the HMAC key as hex ('#' comment lines allowed)")
	conf := fs.Bool("conformance", false, "admit the contract's published test key (conformance runs only)")
	pos, ok := parseFlags(fs, args, e)
	if !ok {
		return exitUsage
	}
	if *keyPath == "" || len(pos) != 1 {
		e.errorf("usage: leasedeck verify --key KEYFILE [--conformance] LEASE.json|-")
		return exitUsage
	}
	keyText, err := os.ReadFile(*keyPath)
	if err != nil {
		e.errorf("cannot read key %s: %v", *keyPath, unwrapPathErr(err))
		return exitInvalid
	}
	kb, err := registry.ParseKeyHex(string(keyText))
	if err != nil {
		e.errorf("key %s: %v", *keyPath, err)
		return exitInvalid
	}
	key, err := registry.NewKey(kb, *conf)
	if err != nil {
		e.errorf("key %s: %v", *keyPath, err)
		return exitInvalid
	}
	data, label, err := readInput(pos[0], e)
	if err != nil {
		e.errorf("%v", err)
		return exitInvalid
	}
	v, err := schemas.ParseJSON(data)
	if err != nil {
		fmt.Fprintf(e.stdout, "json / %s: %v\n", label, err)
		return exitInvalid
	}
	probs := registry.VerifyLease(v, key)
	if len(probs) > 0 {
		for _, p := range probs {
			fmt.Fprintln(e.stdout, p.String())
		}
		fmt.Fprintf(e.stdout, "%s: does not verify (%d problem(s))\n", label, len(probs))
		return exitInvalid
	}
	m := v.(map[string]any)
	fmt.Fprintf(e.stdout, "%s: lease %v verifies: schema valid, hmac-sha256 signature matches key %s, rules L1 and L2 hold\n",
		label, m["lease_id"], key.Fingerprint())
	return exitOK
}

// runConformance: leasedeck conformance [--corpus DIR] [-v] [--json]
func runConformance(args []string, e *env) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	corpus := fs.String("corpus", "", "contract directory (fixtures/, conformance/); default: the copy built into leasedeck")
	verbose := fs.Bool("v", false, "list passing cases too")
	asJSON := fs.Bool("json", false, "print the machine-readable report (the contract runner's shape, plus every case)")
	pos, ok := parseFlags(fs, args, e)
	if !ok {
		return exitUsage
	}
	if len(pos) != 0 {
		e.errorf("usage: leasedeck conformance [--corpus DIR] [-v] [--json]")
		return exitUsage
	}
	fsys := contract.FS()
	if *corpus != "" {
		st, err := os.Stat(*corpus)
		if err != nil || !st.IsDir() {
			e.errorf("corpus %s is not a directory", *corpus)
			return exitInvalid
		}
		fsys = os.DirFS(*corpus)
	}
	rep := conformance.Run(fsys)
	if *asJSON {
		if err := rep.WriteJSON(e.stdout, "leasedeck "+buildVersion()); err != nil {
			e.errorf("%v", err)
			return exitInvalid
		}
	} else {
		rep.Write(e.stdout, *verbose)
	}
	if !rep.OK() {
		return exitInvalid
	}
	return exitOK
}
