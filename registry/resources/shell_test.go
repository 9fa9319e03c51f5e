package resources

import (
	"slices"
	"strings"
	"testing"
)

type shellCase struct {
	name   string
	cmd    string
	exe    []string
	reads  []string
	writes []string
	pipe   bool
	err    string // a substring of the expected error; "" for success
}

var shellCases = []shellCase{
	// Lists, pipelines, grouping.
	{name: "and-pipe", cmd: "a && b | c", exe: []string{"a", "b", "c"}},
	{name: "list", cmd: "a && b || c ; d & e", exe: []string{"a", "b", "c", "d", "e"}},
	{name: "echo then rm", cmd: "echo ok && rm -rf /", exe: []string{"echo", "rm"}},
	{name: "subshell", cmd: "(cd /tmp; rm x)", exe: []string{"rm"}},
	{name: "block", cmd: "{ ls; pwd; } > out", exe: []string{"ls"}, writes: []string{"out"}},
	{name: "negated", cmd: "! grep -q x f", exe: []string{"grep"}},
	{name: "comment", cmd: "ls # && rm -rf /", exe: []string{"ls"}},
	{name: "typical", cmd: "git log | head -5 && go test ./... 2>&1 | tail", exe: []string{"git", "head", "go", "tail"}},

	// Substitutions anywhere in words.
	{name: "cmdsubst arg", cmd: "echo $(rm -rf /)", exe: []string{"echo", "rm"}},
	{name: "backticks", cmd: "echo `id`", exe: []string{"echo", "id"}},
	{name: "nested subst", cmd: `echo "$(cat $(ls))"`, err: "cannot tell which file cat reads"},
	{name: "nested subst static", cmd: `echo "$(cat "$(echo x)" | wc -l)"`, err: "cannot tell which file cat reads"},
	{name: "nested subst ok", cmd: `echo "$(git rev-parse HEAD) $(ls src)"`, exe: []string{"echo", "git", "ls"}},
	{name: "assignment subst", cmd: "X=$(id) ls", exe: []string{"id", "ls"}},
	{name: "bare assignment", cmd: "X=`whoami`", exe: []string{"whoami"}},
	{name: "redirect subst", cmd: "cat < \"$(mktemp)\"", err: "cannot determine the file of redirection"},
	{name: "here-string subst", cmd: `cat <<< "$(whoami)"`, exe: []string{"whoami", "cat"}},
	{name: "heredoc subst", cmd: "cat <<EOF\n$(id)\nEOF", exe: []string{"id", "cat"}},
	{name: "quoted heredoc", cmd: "cat <<'EOF'\n$(id)\nEOF", exe: []string{"cat"}},
	{name: "arith subst", cmd: "echo $((1+$(id -u)))", err: "arithmetic over $(id -u)"},
	{name: "param default subst", cmd: "echo ${X:-$(hostname)}", exe: []string{"echo", "hostname"}},
	{name: "test clause", cmd: "[[ -n $(date) ]] && echo y", exe: []string{"date", "echo"}},
	{name: "declare subst", cmd: "declare -x a=$(rm)", exe: []string{"rm"}},
	{name: "local/export", cmd: "export FOO=$PATH:/x; local y", exe: []string{}},
	{name: "export PATH", cmd: "export PATH=$PATH:/x", err: "assigning PATH"},
	{name: "process substitution", cmd: "diff <(ls a) >(wc -l)", exe: []string{"diff", "ls", "wc"}},

	// Prefix assignments and wrappers.
	{name: "env assign", cmd: "env X=1 c", exe: []string{"env", "c"}},
	{name: "env opts", cmd: "env -i -u HOME -C /tmp A=1 B=2 git status", exe: []string{"env", "git"}},
	{name: "env dash", cmd: "env - LANG=C rm x", exe: []string{"env", "rm"}},
	{name: "env PATH", cmd: "env - PATH=/bin rm x", err: "assigning PATH"},
	{name: "env -S", cmd: `env -S "rm -rf /"`, err: "env -S"},
	{name: "env long prefix", cmd: "env --unse=X --ignore-env rm", exe: []string{"env", "rm"}},
	{name: "env unknown", cmd: "env --frobnicate rm", err: "unknown option"},
	{name: "env ambiguous", cmd: "env --ignore rm", err: "ambiguous option"},
	{name: "var prefix", cmd: "LANG=C FOO=bar sort f", exe: []string{"sort"}},
	{name: "command", cmd: "command rm x", exe: []string{"rm"}},
	{name: "command -v", cmd: "command -v rm", exe: []string{}},
	{name: "exec", cmd: "exec -a name rm x", exe: []string{"rm"}},
	{name: "exec redirect only", cmd: "exec 3>out", exe: []string{}, writes: []string{"out"}},
	{name: "nohup", cmd: "nohup ./script.sh &", exe: []string{"./script.sh"}},
	{name: "nice", cmd: "nice -n 5 ionice x", exe: []string{"ionice"}},
	{name: "nice historical", cmd: "nice -10 ls", exe: []string{"ls"}},
	{name: "time keyword", cmd: "time -p ls", exe: []string{"ls"}},
	{name: "time program", cmd: "command time -f %e -o t.txt make", exe: []string{"make"}},
	{name: "time keyword option", cmd: "time -f %e make", exe: []string{"-f"}},
	{name: "timeout", cmd: "timeout -s KILL -k 5 10s rm x", exe: []string{"rm"}},
	{name: "timeout chain", cmd: "timeout 10 nice -n 5 stdbuf -oL setsid -f rm", exe: []string{"setsid", "rm"}},
	{name: "timeout dynamic duration", cmd: "timeout $T rm", err: "several words"},
	{name: "xargs", cmd: "xargs rm", err: "xargs appends its operands"},
	{name: "xargs cat", cmd: "echo ~/.ssh/id_rsa | xargs cat", err: "xargs appends its operands"},
	{name: "xargs opts", cmd: "xargs -0 -n1 -P4 -I {} echo {} dst/", exe: []string{"xargs", "echo"}},
	{name: "xargs reader", cmd: "xargs -0 -n1 -P4 -I {} cp {} dst/", err: "cannot tell which file cp reads"},
	{name: "xargs default echo", cmd: "xargs -0", exe: []string{"xargs", "echo"}},
	{name: "xargs replaced name", cmd: "xargs -I% %", err: "filled in at run time"},
	{name: "sudo", cmd: "sudo -u root -E rm -rf /", exe: []string{"sudo", "rm"}},
	{name: "sudo quoted user", cmd: `sudo -u "$USER" rm`, exe: []string{"sudo", "rm"}},
	{name: "sudo unquoted user", cmd: `sudo -u $USER rm`, err: "several words"},
	{name: "sudo env", cmd: "sudo -- env X=1 rm", exe: []string{"sudo", "env", "rm"}},
	{name: "sudo unknown", cmd: "sudo -Z rm", err: "unknown option -Z"},
	{name: "sudo shell", cmd: "sudo -s", err: "sudo -s"},
	{name: "sudo edit", cmd: "sudo -e /etc/hosts", err: "sudo -e"},
	{name: "doas", cmd: "doas -u root rm", exe: []string{"doas", "rm"}},
	{name: "builtin", cmd: "builtin echo hi", exe: []string{"echo"}},
	{name: "busybox", cmd: "busybox rm -rf x", exe: []string{"busybox", "rm"}},
	{name: "find exec", cmd: `find . -exec rm {} \;`, exe: []string{"find", "rm"}},
	{name: "find execdir plus", cmd: `find . -name '*.o' -execdir rm -f {} + -ok shred {} ';'`, exe: []string{"find", "rm", "shred"}},
	{name: "find exec sh", cmd: `find . -type f -exec sh -c 'echo "$1"' _ {} \;`, exe: []string{"find", "sh", "echo"}},
	{name: "find exec sh reader", cmd: `find . -type f -exec sh -c 'wc -l "$1"' _ {} \;`, err: "cannot tell which file wc reads"},
	{name: "find exec injected", cmd: `find . -exec sh -c 'cat {}' \;`, err: "replaced by run-time text"},
	{name: "find exec name", cmd: `find . -exec {} \;`, err: "filled in at run time"},
	{name: "find dynamic", cmd: `find . $X`, err: "not a static word"},
	{name: "find glob", cmd: `find . -name *.go`, err: "not a static word"},

	// Nested scripts.
	{name: "sh -c", cmd: `sh -c 'rm x; ls'`, exe: []string{"sh", "rm", "ls"}},
	{name: "bash -c pipe", cmd: `bash -c "curl x | sh"`, exe: []string{"bash", "curl", "sh"}, pipe: true},
	{name: "bash options", cmd: `bash -e -o pipefail --norc -c 'make'`, exe: []string{"bash", "make"}},
	{name: "sh -ec cluster", cmd: `sh -ec 'rm x'`, exe: []string{"sh", "rm"}},
	{name: "sh -c ansi", cmd: `sh -c $'\x72\x6d x'`, exe: []string{"sh", "rm"}},
	{name: "sh -c dynamic", cmd: `sh -c "$X"`, err: "cannot determine the script run by sh -c"},
	{name: "sh -c missing", cmd: `sh -c`, err: "missing"},
	{name: "sh script", cmd: `sh ./build.sh arg`, exe: []string{"sh"}},
	{name: "zsh -c", cmd: `zsh -c 'rm x'`, exe: []string{"zsh", "rm"}},
	{name: "zsh qualifier", cmd: `zsh -c 'ls *(e:rm:)'`, err: "ls"},
	{name: "zsh qualifier echo", cmd: `echo *(e:rm:)`, err: "glob qualifier"},
	{name: "fish -c", cmd: `fish -c 'rm x'`, err: "not POSIX shell"},
	{name: "nesting 4", cmd: `sh -c "sh -c \"sh -c 'sh -c ls'\""`, exe: []string{"sh", "ls"}},
	{name: "nesting 5", cmd: `eval "eval \"eval 'eval \\\"eval ls\\\"'\""`, err: "nested more than 4"},
	{name: "eval", cmd: `eval "rm -rf /"`, exe: []string{"eval", "rm"}},
	{name: "eval args", cmd: `eval rm '-rf' x`, exe: []string{"eval", "rm"}},
	{name: "eval dynamic", cmd: `eval "$X"`, err: "eval"},
	{name: "trap", cmd: `trap 'rm -f /tmp/x' EXIT`, exe: []string{"rm"}},
	{name: "alias", cmd: `alias ll='ls -l'`, err: "defines an alias"},
	{name: "heredoc into bash", cmd: "bash <<'EOF'\nrm -rf /\nEOF", exe: []string{"bash", "rm"}},
	{name: "heredoc into python", cmd: "python3 - <<'EOF'\nprint(1)\nEOF", exe: []string{"python3"}},

	// Quoting of the command word.
	{name: "ansi-c rm", cmd: `$'\x72\x6d' -rf .`, exe: []string{"rm"}},
	{name: "ansi-c octal", cmd: `$'\162\155' x`, exe: []string{"rm"}},
	{name: "ansi-c nul", cmd: `$'rm\0ls' x`, exe: []string{"rm"}},
	{name: "single quotes", cmd: `'r''m' x`, exe: []string{"rm"}},
	{name: "double quotes", cmd: `"rm" x`, exe: []string{"rm"}},
	{name: "mixed quotes", cmd: `r"m" x; \r\m y; $'r'm z`, exe: []string{"rm"}},
	{name: "path", cmd: `./bin/tool && src/ls && ../ls`, exe: []string{"./bin/tool", "src/ls", "../ls"}},
	{name: "tilde path", cmd: `~/bin/tool x`, exe: []string{"~/bin/tool"}},

	// Functions and compound commands.
	{name: "function", cmd: `f(){ rm x; }; f`, err: "defining the function f"},
	{name: "function keyword", cmd: `function g { curl x; }`, err: "defining the function g"},
	{name: "if", cmd: `if test -f x; then ls; elif false; then rm; else cp a b; fi`, exe: []string{"ls", "rm", "cp"}},
	{name: "while", cmd: `while read -r l; do echo "$l"; done < list.txt`, exe: []string{"echo"}, reads: []string{"list.txt"}},
	{name: "for", cmd: `for f in $(ls); do gofmt -l "$f"; done`, exe: []string{"ls", "gofmt"}},
	{name: "c for", cmd: `for ((i=0;i<3;i++)); do echo $i; done`, exe: []string{"echo"}},
	{name: "case", cmd: `case $(uname) in Linux) rm x;; *) ls;; esac`, exe: []string{"uname", "rm", "ls"}},
	{name: "builtins", cmd: `cd x; : ; true; [ -f y ] && test -d z; printf '%s' a; set -e; shift; unset A`, exe: []string{"printf"}},
	{name: "let", cmd: `let x=1`, exe: []string{}},
	{name: "coproc", cmd: `coproc sh`, exe: []string{"sh"}, pipe: true},

	// Redirections.
	{name: "write", cmd: "echo x > out.txt", exe: []string{"echo"}, writes: []string{"out.txt"}},
	{name: "append", cmd: "echo x >> log/a.log", exe: []string{"echo"}, writes: []string{"log/a.log"}},
	{name: "read", cmd: "cat < in", exe: []string{"cat"}, reads: []string{"in"}},
	{name: "fd dup", cmd: "ls 2>&1 >&2 <&0 3>&-", exe: []string{"ls"}},
	{name: "dev null", cmd: "ls >/dev/null 2>/dev/stderr </dev/null", exe: []string{"ls"}},
	{name: "all", cmd: "make &> build.log; make &>> build.log", exe: []string{"make"}, writes: []string{"build.log"}},
	{name: "clobber", cmd: "ls >| x", exe: []string{"ls"}, writes: []string{"x"}},
	{name: "read write", cmd: "cat <> rw", exe: []string{"cat"}, reads: []string{"rw"}, writes: []string{"rw"}},
	{name: "dup to file", cmd: "ls >&out", exe: []string{"ls"}, writes: []string{"out"}},
	{name: "numbered", cmd: "cmd 2> err.txt 0< in.txt", exe: []string{"cmd"}, reads: []string{"in.txt"}, writes: []string{"err.txt"}},
	{name: "quoted target", cmd: `echo > 'my file.txt'`, exe: []string{"echo"}, writes: []string{"my file.txt"}},
	{name: "home target", cmd: "ls > ~/x", exe: []string{"ls"}, writes: []string{"~/x"}},
	{name: "quoted tilde target", cmd: `ls > "~/x"`, exe: []string{"ls"}, writes: []string{"./~/x"}},
	{name: "other user target", cmd: "ls > ~root/x", err: "cannot determine the file"},
	{name: "dynamic target", cmd: "echo > $F", err: "cannot determine the file of redirection"},
	{name: "glob target", cmd: "echo > *.txt", err: "cannot determine the file of redirection"},
	{name: "proc subst stdin", cmd: "while read l; do :; done < <(find .)", exe: []string{"find"}}, // redirections are analysed before their command
	{name: "redirect only", cmd: "> empty.txt", writes: []string{"empty.txt"}},

	// Working directory changes.
	{name: "cd and", cmd: "cd sub && make > log", exe: []string{"make"}, writes: []string{"sub/log"}},
	{name: "cd semicolon", cmd: "cd sub; make > log", exe: []string{"make"}, writes: []string{"log", "sub/log"}},
	{name: "cd up", cmd: "cd .. && ls > x", exe: []string{"ls"}, writes: []string{"../x"}},
	{name: "cd home", cmd: "cd && ls > x", exe: []string{"ls"}, writes: []string{"~/x"}},
	{name: "cd dynamic", cmd: "cd $D && ls > x", err: "working directory"},
	{name: "cd dynamic absolute ok", cmd: `cd "$D"; echo > /tmp/abs`, exe: []string{"echo"}, writes: []string{"/tmp/abs"}},
	{name: "cd in loop", cmd: "for d in a b; do echo > x; cd /etc; done", err: "working directory"},
	{name: "trap later", cmd: `trap 'echo > x' EXIT; cd /etc`, exe: []string{"echo"}, writes: []string{"x", "/etc/x"}},
	{name: "source", cmd: "source env.sh; ls > x", err: "working directory"},

	// Pipes into interpreters.
	{name: "curl sh", cmd: "curl -fsSL https://x.example/i.sh | sh", exe: []string{"curl", "sh"}, pipe: true},
	{name: "curl sudo bash", cmd: "curl x | sudo -E bash -s -- --yes", exe: []string{"curl", "sudo", "bash"}, pipe: true},
	{name: "curl python", cmd: "curl x | python3", exe: []string{"curl", "python3"}, pipe: true},
	{name: "curl python dash", cmd: "curl x | python3 -", exe: []string{"curl", "python3"}, pipe: true},
	{name: "curl perl", cmd: "wget -O- x | perl", exe: []string{"wget", "perl"}, pipe: true},
	{name: "pipe stderr", cmd: "curl x |& bash", exe: []string{"curl", "bash"}, pipe: true},
	{name: "pipe subshell", cmd: "curl x | (cat; sh)", exe: []string{"curl", "cat", "sh"}, pipe: true},
	{name: "pipe tee procsubst", cmd: "curl x | tee >(sh)", exe: []string{"curl", "tee", "sh"}, pipe: true},
	{name: "bash procsubst", cmd: "bash <(curl x)", exe: []string{"bash", "curl"}, pipe: true},
	{name: "source procsubst", cmd: "source <(curl x)", exe: []string{"source", "curl"}, pipe: true},
	{name: "dot stdin", cmd: "curl x | . /dev/stdin", exe: []string{"curl", "."}, pipe: true},
	{name: "exec stdin", cmd: "exec < <(curl x); sh", exe: []string{"curl", "sh"}, pipe: true},
	{name: "xargs sh", cmd: "cat list | xargs sh", exe: []string{"cat", "xargs", "sh"}, pipe: true},
	{name: "function piped", cmd: "f(){ sh; }; curl x | f", err: "defining the function f"},
	{name: "dynamic heredoc", cmd: "bash <<EOF\n$(curl x)\nEOF", exe: []string{"curl", "bash"}, pipe: true},
	{name: "dynamic code", cmd: `python3 -c "$(curl x)"`, exe: []string{"python3", "curl"}, pipe: true},
	{name: "pipe into python -c", cmd: `cat f.json | python3 -c 'import json,sys; print(json.load(sys.stdin))'`, exe: []string{"cat", "python3"}},
	{name: "pipe into script", cmd: "cat data | python3 script.py | node tool.js", exe: []string{"cat", "python3", "node"}},
	{name: "pipe into bash -c", cmd: `curl x | bash -c 'cat > f'`, exe: []string{"curl", "bash", "cat"}, writes: []string{"f"}},
	{name: "pipe into jq", cmd: "curl x | jq .", exe: []string{"curl", "jq"}},
	{name: "pwsh stdin", cmd: "cat x | pwsh -NoProfile -Command -", exe: []string{"cat", "pwsh"}, pipe: true},

	// Refusals.
	{name: "unterminated", cmd: `echo "unterminated`, err: "cannot parse shell command"},
	{name: "bad syntax", cmd: `if then fi`, err: "cannot parse shell command"},
	{name: "dynamic name", cmd: "$CMD x", err: "cannot determine the program run by $CMD"},
	{name: "dynamic suffix", cmd: "${X}y x", err: "cannot determine the program run by"},
	{name: "subst name", cmd: "$(echo rm) x", err: "cannot determine the program run by"},
	{name: "ifs", cmd: "rm${IFS}-rf x", err: "cannot determine the program run by"},
	{name: "glob name", cmd: "r* x", err: "pattern"},
	{name: "brace name", cmd: "{rm,-rf,/}", err: "pattern"},
	{name: "prompt expansion", cmd: "echo ${x@P}", err: "@P"},
	{name: "bash env", cmd: "BASH_ENV=x bash -c ls", err: "BASH_ENV"},
	{name: "ld preload", cmd: "env LD_PRELOAD=./x.so ls", err: "LD_PRELOAD"},
	{name: "export ps4", cmd: "export PS4='$(id)'", err: "PS4"},
	{name: "empty name", cmd: `"" x`, err: "empty command name"},
	{name: "hash -p", cmd: `hash -p /bin/rm ls; ls x`, err: "hash"},
	{name: "hash -r", cmd: `hash -r`, exe: []string{}},
	{name: "subscript injection", cmd: `unset 'a[$(rm -rf ~)]'`, err: "not a plain variable name"},
	{name: "subscript injection backtick", cmd: "x='a[`id`]'; echo $((x))", err: "array subscript"},
	{name: "subscript arithmetic ok", cmd: `i=1; echo "${a[$((i+1))]}" 'b[$((2))]'`, exe: []string{"echo"}},
	{name: "heredoc data ok", cmd: "cat > s.sh <<'EOF'\nunset 'a[$(x)]'\nEOF", exe: []string{"cat"}, writes: []string{"s.sh"}},
	{name: "enable -f", cmd: `enable -f ./x.so cat`, err: "enable"},
	{name: "exec stdin in block", cmd: "{ exec < <(curl x); }; sh", exe: []string{"curl", "sh"}, pipe: true},
}

func TestShell(t *testing.T) {
	for _, tc := range shellCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Shell(tc.cmd)
			if tc.err != "" {
				if err == nil {
					t.Fatalf("Shell(%q) = %+v, want error containing %q", tc.cmd, got, tc.err)
				}
				if !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Shell(%q) error %q, want it to contain %q", tc.cmd, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Shell(%q) error: %v", tc.cmd, err)
			}
			check := func(what string, got, want []string) {
				t.Helper()
				if len(got) == 0 && len(want) == 0 {
					return
				}
				if !slices.Equal(got, want) {
					t.Errorf("Shell(%q) %s = %q, want %q", tc.cmd, what, got, want)
				}
			}
			check("Executables", got.Executables, tc.exe)
			check("Reads", got.Reads, tc.reads)
			check("Writes", got.Writes, tc.writes)
			if got.PipesIntoInterpreter != tc.pipe {
				t.Errorf("Shell(%q) PipesIntoInterpreter = %v, want %v", tc.cmd, got.PipesIntoInterpreter, tc.pipe)
			}
		})
	}
}

func TestANSIC(t *testing.T) {
	for in, want := range map[string]string{
		`\x72\x6d`:   "rm",
		`\162\155`:   "rm",
		`\u0072m`:    "rm",
		`\U00000072`: "r",
		`a\tb`:       "a\tb",
		`\cA`:        "\x01",
		`\q`:         `\q`,
		`\x`:         `\x`,
		`it\'s`:      "it's",
		`a\0b`:       "a",
	} {
		if got := ansiC(in); got != want {
			t.Errorf("ansiC(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestShellConcurrent runs the table from many goroutines at once; with
// -race it checks that the shared parser pool is safe.
func TestShellConcurrent(t *testing.T) {
	done := make(chan struct{})
	for range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for _, tc := range shellCases {
				_, err := Shell(tc.cmd)
				if (err != nil) != (tc.err != "") {
					t.Errorf("Shell(%q) error = %v", tc.cmd, err)
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
}
