#!/bin/sh
# suite-loop: the whole `go test ./...` again and again on a fixed clone of
# HEAD, uncached, and count the runs that fail (issue 18's "10 times in a
# row"; target 0). Usage: hack/suite-loop.sh [RUNS] [NAME]  (default 10, loop)
# The clone is /tmp/suite-loop-NAME (so two loops can run side by side, each
# the other's load); logs and a summary line per run go to bin/suite-loop/NAME
# of this checkout. Run it after a `make test`: the local API server's
# binaries and the k0rdent controllers then come from kbook's cache, not
# from a build inside the first run.
# Exit 0 when no run failed.
set -u
RUNS=${1:-10}
NAME=${2:-loop}
GO=${GO:-go}
PKGS=${PKGS:-./...} # fewer packages, to try the loop itself
here=$(cd "$(dirname "$0")/.." && pwd)
out=$here/bin/suite-loop/$NAME
clone=/tmp/suite-loop-$NAME
mkdir -p "$out"
rm -rf "$clone"
git clone -q "$here" "$clone" || exit 2
# ../shared beside the clone, as beside the repository.
if [ -d "$here/../shared" ] && [ ! -e /tmp/shared ]; then
	ln -s "$(cd "$here/../shared" && pwd)" /tmp/shared
fi
cd "$clone" || exit 2
$GO build -o bin/kbook ./cmd/kbook || exit 2
$GO build -o bin/ ./examples/providers/inventory/cmd/... || exit 2
KUBEBUILDER_ASSETS=$(bin/kbook cluster assets) || exit 2
export KUBEBUILDER_ASSETS
rev=$(git rev-parse --short HEAD)
summary=$out/summary
echo "suite-loop $NAME: $RUNS runs of go test -count=1 $PKGS on $rev ($(date -u +%FT%TZ))" >>"$summary"
failed=0
i=1
while [ "$i" -le "$RUNS" ]; do
	log=$out/run-$i.log
	start=$(date +%s)
	load0=$(cut -d' ' -f1 /proc/loadavg)
	ok=pass
	$GO test -count=1 -timeout 30m -vet=off $PKGS >"$log" 2>&1 || ok=FAIL
	took=$(( $(date +%s) - start ))
	load1=$(cut -d' ' -f1 /proc/loadavg)
	line="run $i: $ok in ${took}s (load $load0 -> $load1)"
	if [ "$ok" = FAIL ]; then
		failed=$((failed + 1))
		line="$line: $(grep -E '^(--- FAIL|FAIL|panic:)' "$log" | head -5 | tr '\n' ' ')"
	fi
	echo "$line" | tee -a "$summary"
	i=$((i + 1))
done
echo "suite-loop $NAME: $RUNS runs, $failed failed" | tee -a "$summary"
[ "$failed" -eq 0 ]
