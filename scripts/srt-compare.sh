#!/bin/sh
# srt-compare.sh: the confined-mode attack script (the one
# cmd/leasedeck/run_linux_test.go runs) under `leasedeck run` and under
# Anthropic's sandbox-runtime (`srt`) with an equivalent configuration, and
# the start-up cost of each (median of N runs of `true`). A measurement for
# BENCHMARKS.md, not part of CI.
#
#   scripts/srt-compare.sh [N]        (default N=20)
#
# Needs: go, python3, curl, git, node, npm, bubblewrap and socat (srt's
# Linux dependencies), a kernel with Landlock ABI 4+. srt is installed with
# npm at SRT_VERSION into a temporary directory.
set -eu
N=${1:-20}
SRT_VERSION=${SRT_VERSION:-0.0.83}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d /tmp/srtcmp.XXXXXX)
trap 'kill $SERVE_PID $UP_PID 2>/dev/null || true; rm -rf "$T"' EXIT
SERVE_PID= UP_PID=

go build -o "$T/bin/leasedeck" "$ROOT/cmd/leasedeck"
(cd "$T" && npm install --silent --no-audit --no-fund "@anthropic-ai/sandbox-runtime@$SRT_VERSION" >/dev/null 2>&1)
SRT="$T/node_modules/.bin/srt"
LD="$T/bin/leasedeck"

# The workspace under attack, as in the test: credentials, hook settings,
# a git repository, a denied secret, and an upstream server on loopback.
export HOME="$T/home" XDG_STATE_HOME="$T/state" XDG_CONFIG_HOME="$T/config" PATH=/usr/local/bin:/usr/bin:/bin
WS="$T/ws" OUT="$T/outside"
mkdir -p "$HOME/.ssh" "$HOME/.aws" "$HOME/.claude" "$WS/src" "$WS/.claude" "$OUT"
echo "PRIVATE KEY" > "$HOME/.ssh/id_rsa"
printf '[default]\nkey=AKIA\n' > "$HOME/.aws/credentials"
echo '{"hooks":{}}' > "$HOME/.claude/settings.json"
echo '{"hooks":{}}' > "$WS/.claude/settings.json"
printf '[user]\n\tname = t\n\temail = t@example.com\n' > "$HOME/.gitconfig"
echo "SECRET=1" > "$WS/.env"
git init -q "$WS"
"$LD" init "$WS" >/dev/null
cat > "$WS/.leasedeck/agents/claude-code.json" <<'JSON'
{"schema_version":"1.2","agent":{"name":"confined","kind":"external","runtime_agent":"claude-code"},
 "intent":{"purpose":"srt comparison"},
 "allow":{"tools":["Bash","Read","Write"],"read_paths":["**"],"write_paths":["src/**"],"hosts":["127.0.0.1"],"commands":["sh","python3"]},
 "deny":{"commands":[],"paths":[".env"],"hosts":[]},"budget":{"steps":100},"approvals":[]}
JSON
mkdir -p "$T/www" && echo "hello from upstream" > "$T/www/index.html"
python3 -m http.server --bind 127.0.0.1 --directory "$T/www" 0 > "$T/up.log" 2>&1 &
UP_PID=$!
UP=
while [ -z "$UP" ]; do sleep 0.1; UP=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$T/up.log" | head -1); done
(cd "$WS" && "$LD" serve > "$T/serve.log" 2>&1) &
SERVE_PID=$!
until grep -q "registry serving" "$T/serve.log" 2>/dev/null; do sleep 0.1; done
STATE=$(dirname "$(ls "$XDG_STATE_HOME"/leasedeck/*/token)")
KEY="$STATE/key" TOKEN="$STATE/token"
export WS OUT KEY TOKEN UP NO_PROXY=127.0.0.1,localhost

# The shell attack of run_linux_test.go (shellAttack), verbatim.
cat > "$WS/attack.sh" <<'SH'
try() { name=$1; shift; if "$@" >/dev/null 2>&1; then echo "$name:ok"; else echo "$name:fail"; fi; }
try write_outside sh -c "echo x > $OUT/outside.txt"
try read_ssh cat "$HOME/.ssh/id_rsa"
try read_aws cat "$HOME/.aws/credentials"
try read_key cat "$KEY"
try read_token cat "$TOKEN"
try read_denied cat "$WS/.env"
try edit_policy sh -c "echo x >> $WS/.leasedeck/policy.json"
try edit_agent sh -c "echo x > $WS/.leasedeck/agents/claude-code.json"
try new_agent sh -c "echo x > $WS/.leasedeck/agents/evil.json"
try edit_ws_hooks sh -c "echo x > $WS/.claude/settings.json"
try new_ws_hooks sh -c "echo x > $WS/.claude/settings.local.json"
try edit_user_hooks sh -c "echo x > $HOME/.claude/settings.json"
try git_hookspath git -C "$WS" config core.hooksPath /tmp
try git_hook sh -c "echo x > $WS/.git/hooks/pre-commit"
try rm_policy rm -f "$WS/.leasedeck/policy.json"
try mv_claude mv "$WS/.claude" "$WS/claude.old"
try proxy_unlisted curl -fsS --max-time 5 http://example.com/
try proxy_localhost curl -fsS --max-time 5 http://localhost:$UP/
try direct_tcp curl -fsS --max-time 5 --noproxy '*' http://127.0.0.1:$UP/
try allowed_write sh -c "echo ok > $WS/src/new.txt"
try allowed_fetch curl -fsS --max-time 5 http://127.0.0.1:$UP/
SH

# srt's equivalent of the lease: writes only under src/, the same files
# unreadable, leasedeck's files and the hook settings not writable, only
# 127.0.0.1 reachable (through srt's proxy).
cat > "$T/srt.json" <<JSON
{"filesystem": {"denyRead": ["$HOME/.ssh", "$HOME/.aws", "$STATE", "$WS/.env"],
                "allowWrite": ["$WS/src"],
                "denyWrite": ["$WS/.leasedeck", "$WS/.claude", "$WS/.git/hooks", "$WS/.git/config", "$HOME/.claude"]},
 "network": {"allowedDomains": ["127.0.0.1"], "deniedDomains": []}}
JSON

# Every file but the journal, which the registry appends to.
snapshot() { (cd "$T" && find home ws -path ws/.git/objects -prune -o -path ws/.leasedeck/journal -prune -o -type f -print | sort | xargs sha256sum) ; }
run_attack() { # $1 = label; the rest: the command prefix
	label=$1; shift
	snapshot > "$T/$label.before"
	"$@" sh "$WS/attack.sh" > "$T/$label.out" 2> "$T/$label.err" || true
	snapshot | grep -v " ws/src/new.txt$" > "$T/$label.after"
	if cmp -s "$T/$label.before" "$T/$label.after"; then echo "yes" > "$T/$label.fs"; else
		echo "no: $(diff "$T/$label.before" "$T/$label.after" | sed -n 's/^[<>] [0-9a-f]*  //p' | sort -u | tr '\n' ' ')" > "$T/$label.fs"; fi
	# Put back what an attack that got through changed (the journal, which
	# the running registry owns, is not in the copy).
	rm -rf "$WS/claude.old" "$WS/.claude" "$WS/src" "$WS/.git" "$HOME" "$OUT"/*
	find "$WS/.leasedeck" -path "$WS/.leasedeck/journal" -prune -o -type f -print | xargs rm -f
	tar -C "$T" -xf "$T/pristine.tar"
}
tar -C "$T" --exclude ws/.leasedeck/journal -cf "$T/pristine.tar" home ws
run_attack leasedeck "$LD" run --client claude-code --workspace "$WS" --
# srt routes HTTP through its own proxy only when NO_PROXY does not send
# loopback around it (leasedeck run sets the child's proxy variables itself).
run_attack srt env -u NO_PROXY -u no_proxy "$SRT" -s "$T/srt.json"
run_attack none env

echo "## versions"
echo "- leasedeck: $(cd "$ROOT" && git rev-parse --short HEAD)"
echo "- srt: $("$SRT" --version) (npm @anthropic-ai/sandbox-runtime@$SRT_VERSION), $(bwrap --version), node $(node --version)"
echo "- kernel: $(uname -r)"
echo
echo "| attack | no sandbox | leasedeck run | srt |"
echo "|---|---|---|---|"
for name in $(sed -n 's/^try \([a-z_]*\) .*/\1/p' "$WS/attack.sh"); do
	v() { sed -n "s/^$name:\(.*\)/\1/p" "$T/$1.out"; }
	echo "| $name | $(v none) | $(v leasedeck) | $(v srt) |"
done
echo "| files outside src/ unchanged | $(cat "$T/none.fs") | $(cat "$T/leasedeck.fs") | $(cat "$T/srt.fs") |"
echo
echo "leasedeck run's first line: $(head -1 "$T/leasedeck.err")"
echo

# Start-up: wall time of N runs of true, interleaved, median in ms.
now() { date +%s%N; }
for i in $(seq "$N"); do
	for label in bare leasedeck srt; do
		s=$(now)
		case $label in
		bare) true ;;
		leasedeck) "$LD" run --client claude-code --workspace "$WS" -- true 2>/dev/null ;;
		srt) env -u NO_PROXY -u no_proxy "$SRT" -s "$T/srt.json" true 2>/dev/null ;;
		esac
		echo $(( ($(now) - s) / 1000 )) >> "$T/t.$label"
	done
done
med() { sort -n "$T/t.$1" | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m/1000}'; }
# srt exports no_proxy=localhost,127.0.0.1,… itself, so a loopback fetch
# that honours the proxy variables goes direct, into srt's empty network
# namespace. The same fetches made to use srt's proxy:
for u in "http://127.0.0.1:$UP/" "http://example.com/"; do
	code=$(env -u NO_PROXY -u no_proxy "$SRT" -s "$T/srt.json" -c "curl -sS --noproxy '' --max-time 5 -o /dev/null -w '%{http_code}' $u" 2>/dev/null || true)
	echo "srt, $u through its proxy (curl --noproxy ''): HTTP $code"
done
echo
echo "start-up, median of $N runs of \`true\` (ms): bare $(med bare), leasedeck run $(med leasedeck), srt $(med srt)"
