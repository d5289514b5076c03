#!/usr/bin/env bash
# bench-speed.sh - the rows of the speed issue's target table that kbook can
# measure on this machine, each as a ratio against a baseline measured in the
# same run, with the machine's load beside it. Not a test: nothing here fails
# on a number.
#
#   hack/bench-speed.sh            # bin/kbook (built by make build)
#   KBOOK=path/to/kbook hack/bench-speed.sh
#   KBOOK_BASE=path/to/old/kbook hack/bench-speed.sh   # the per-runbook row against that binary (default: against runbooks needing no cluster)
#   REPEAT=3 hack/bench-speed.sh   # best of 3 per measurement (default 1)
#
# The k0rdent rows need the release's CRDs (--k0rdent v1.11.4 --k0rdent-api-only:
# fetched once from the Go module proxy) and the local API server's binaries
# (kbook cluster assets); the plane row the release's controllers (kbook
# cluster assets --k0rdent v1.11.4, built once; SKIP_PLANE=1 leaves it out).
# The download row serves setup-envtest's index and an archive of the built
# binaries in process (BenchmarkFirstStartDownload): no real download site.
# Each row: what, baseline, now, now/baseline, the issue's target, load.
set -euo pipefail
KBOOK=${KBOOK:-bin/kbook}
K0RDENT=${K0RDENT:-v1.11.4}
REPEAT=${REPEAT:-1}
KBOOK=$(cd "$(dirname "$KBOOK")" && pwd)/$(basename "$KBOOK")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

load() { cut -d' ' -f1-3 /proc/loadavg; }

# best SECONDS of REPEAT runs of "$@" (output to $work/last.log; a failing
# run aborts the script with its log).
best() {
	local b="" t0 t1 s
	for _ in $(seq "$REPEAT"); do
		t0=$(date +%s.%N)
		if ! "$@" >"$work/last.log" 2>&1; then
			echo "FAILED: $*" >&2
			tail -30 "$work/last.log" >&2
			exit 1
		fi
		t1=$(date +%s.%N)
		s=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$b" ] || [ "$(echo "$s < $b" | bc -l)" = 1 ]; then b=$s; fi
	done
	printf '%.2f' "$b"
}

row() { # what, baseline label, baseline s, new label, new s, target
	printf '%-58s | %-28s %7.2fs | %-24s %7.2fs | %5.2fx | %-22s | load %s\n' "$1" "$2" "$3" "$4" "$5" "$(echo "$5 / $3" | bc -l)" "$6" "$(load)"
}

# a row with no baseline in this run: what, why, now label, now s, target
lone() {
	printf '%-58s | %-37s | %-24s %7.2fs | %6s | %-22s | load %s\n' "$1" "$2" "$3" "$4" "" "$5" "$(load)"
}

runbook() { # name, requires, script...
	local f="$work/rb/$1.md"
	mkdir -p "$work/rb"
	shift
	{ printf -- '---\nrequires: [%s]\n---\n```testscript\n' "$1"; shift; printf '%s\n' "$@"; printf '```\n'; } >"$f"
}

run() { "$KBOOK" run --no-cache --progress plain "$@"; }

echo "kbook speed bench: $KBOOK, $(nproc) cores, load $(load), $(date -u +%FT%TZ)"
printf '%-58s | %-37s | %-33s | %6s | %-22s |\n' "row" "baseline" "now" "ratio" "target"
# The fresh-clone row is make test's own measurement (hack/phase writes
# bin/phases.tsv): the last make test of this checkout, which is a fresh
# machine's only when it ran on a fresh clone with empty caches.
phases=$(dirname "$KBOOK")/phases.tsv
if [ -s "$phases" ]; then
	# hack/phase's own table gives the total (first start to last end);
	# a phase that exited non-zero (column 4) made the run fail.
	total=$(PHASES=$phases "$(dirname "$0")/phase" --table | awk '$1 == "total" { print int($2) }')
	status=$(awk -F'\t' '$4 != 0 { bad = 1 } END { print (bad ? "failed" : "green") }' "$phases")
	last=$(printf '%d min %02d s, %s' $((total / 60)) $((total % 60)) "$status")
	printf '%-58s | %-37s | %-33s | %6s | %-22s |\n' "make test (last run here: fresh only from a fresh clone)" "bin/phases.tsv, $(date -u -r "$phases" +%FT%TZ)" "$last" "" "<= 30 min, green"
else
	printf '%-58s | %-37s | %-33s | %6s | %-22s |\n' "fresh-clone make test, offline" "not measured here:" "run make test on a fresh clone" "" "<= 30 min, green"
fi

# -p 2 against -p 1: four independent runbooks that each sleep 3 s.
for i in 1 2 3 4; do runbook "sleep$i" cluster "exec sleep 3"; done
p1=$(best run -p 1 "$work"/rb/sleep?.md)
p2=$(best run -p 2 "$work"/rb/sleep?.md)
row "-p 2 vs -p 1, 4 runbooks sleeping 3 s" "-p 1" "$p1" "-p 2" "$p2" "<= 0.6x"

# kbook's time per runbook beyond its steps: 10 one-command runbooks
# against 1, on the same server; (T10 - T1) / 9 is what each added runbook
# costs (namespace, snapshot of the cluster's objects, cleanup). Baseline:
# the same runbooks needing no cluster (the runner alone), or, with
# KBOOK_BASE, the cluster runbooks under that other kbook binary.
for i in $(seq -w 1 10); do
	runbook "tiny$i" cluster "exec true"
	runbook "bare$i" "exec:true" "exec true"
done
perrb() { # kbook binary, runbook prefix -> seconds per added runbook
	local one ten
	one=$(best "$1" run --no-cache --progress plain -p 1 "$work/rb/${2}01.md")
	ten=$(best "$1" run --no-cache --progress plain -p 1 "$work"/rb/"$2"??.md)
	echo "($ten - $one) / 9" | bc -l
}
now=$(perrb "$KBOOK" tiny)
if [ -n "${KBOOK_BASE:-}" ]; then
	base=$(perrb "$KBOOK_BASE" tiny)
	row "kbook's time per runbook beyond its steps (-p 1)" "$(basename "$KBOOK_BASE")" "$base" "$(basename "$KBOOK")" "$now" "<= 0.5 s"
else
	base=$(perrb "$KBOOK" bare)
	row "kbook's time per runbook beyond its steps (-p 1)" "no cluster (runner alone)" "$base" "local cluster" "$now" "<= 0.5 s"
fi

# kind: the same one-command runbook on a one-node kind cluster created
# for the run from kbook's node image (cached: kbook cluster image builds
# it the first time, not timed), against the local backend in this run.
# Needs a container engine (hack/engine start); said and left out without.
if docker version >/dev/null 2>&1 && "$KBOOK" cluster image >"$work/image.log" 2>&1; then
	local_s=$(best run "$work/rb/tiny01.md")
	kind_s=$(best run --cluster kind --kind-image build "$work/rb/tiny01.md")
	row "tiny runbook end to end: kind cluster (warm image) vs local" "local backend" "$local_s" "kind, one node" "$kind_s" "(no target)"
else
	printf '%-58s | not measured: no container engine, or no node image (%s)\n' "tiny runbook end to end: kind cluster (warm image) vs local" "$(tail -1 "$work/image.log" 2>/dev/null)"
fi

# The k0rdent release's CRDs (86 for v1.11.4), API only: the server ready,
# and a tiny runbook end to end (one kubectl apply of a ClusterTemplate).
# Baseline: --no-snapshot (an empty server, CRDs installed); now: started
# from the snapshot saved the first time (made here first, not timed).
cat >"$work/rb/ct.md" <<'MD'
---
requires: [k0rdent, exec:kubectl]
---
```yaml file=ct.yaml
apiVersion: k0rdent.mirantis.com/v1beta1
kind: ClusterTemplate
metadata:
  name: tiny-1-0-0
spec:
  helm:
    chartSpec:
      chart: tiny
      version: 1.0.0
      interval: 10m
      sourceRef:
        kind: HelmRepository
        name: tiny
```

```testscript
exec kubectl apply -f ct.yaml
stdout 'clustertemplate.k0rdent.mirantis.com/tiny-1-0-0 created'
```
MD
k0=(--k0rdent "$K0RDENT" --k0rdent-api-only)
run "${k0[@]}" "$work/rb/ct.md" >"$work/first.log" 2>&1 || { echo "the k0rdent rows need: $KBOOK run ${k0[*]}:"; tail -30 "$work/first.log"; exit 1; }
cold=$(best run "${k0[@]}" --no-snapshot "$work/rb/ct.md")
warm=$(best run "${k0[@]}" "$work/rb/ct.md")
row "tiny runbook end to end, $K0RDENT API only (86 CRDs), warm" "--no-snapshot" "$cold" "snapshot" "$warm" "<= 4 s"

# The server ready with those CRDs (start to served), from the Go benchmark
# that starts it both ways in one process; and, unless SKIP_PLANE=1, the
# plane with its controllers to Management ready both ways
# (BenchmarkLocalStartPlane, which waits for any other plane's tests:
# one plane per machine).
assets=$("$KBOOK" cluster assets --assets-from build)
benches='BenchmarkLocalStartK0rdent|BenchmarkFirstStartDownload'
if [ "${SKIP_PLANE:-}" != 1 ]; then benches="$benches|BenchmarkLocalStartPlane"; fi
out=$(KUBEBUILDER_ASSETS=$assets go test -run '^$' -bench "$benches" -benchtime "${REPEAT}x" -timeout 60m ./internal/cluster 2>&1) || { echo "$out"; exit 1; }
secs() { echo "$out" | awk -v n="$1" '$1 ~ n { print $3 / 1e9 }' | head -1; }
row "local API server ready, $K0RDENT API only (86 CRDs), warm" "--no-snapshot" "$(secs LocalStartK0rdent/no-snapshot)" "snapshot" "$(secs LocalStartK0rdent/snapshot)" "<= 3 s"
if [ "${SKIP_PLANE:-}" != 1 ]; then
	row "local plane: start to Management ready, warm" "--no-snapshot (bootstrap)" "$(secs LocalStartPlane/no-snapshot)" "snapshot (restored)" "$(secs LocalStartPlane/snapshot)" "<= 10 s"
fi

# The local plane (the release's real controllers) to Management ready and
# one step, end to end through kbook run: baseline --no-snapshot (the
# plane bootstrapped), now from the plane's snapshot (made by the first
# run here, not timed).
if [ "${SKIP_PLANE:-}" != 1 ]; then
	cat >"$work/rb/mgmt.md" <<'MD'
---
requires: [k0rdent, exec:kubectl]
---
```testscript
exec kubectl get crd managements.k0rdent.mirantis.com
stdout managements
```
MD
	# One plane per machine (CAPD's port): another one running is said
	# and the row left out, not the bench.
	if run --k0rdent "$K0RDENT" "$work/rb/mgmt.md" >"$work/plane.err" 2>&1 &&
		cold=$(best run --k0rdent "$K0RDENT" --no-snapshot "$work/rb/mgmt.md" 2>>"$work/plane.err") &&
		plane=$(best run --k0rdent "$K0RDENT" "$work/rb/mgmt.md" 2>>"$work/plane.err"); then
		row "local plane: start to Management ready + 1 step, warm" "--no-snapshot (bootstrap)" "$cold" "snapshot (restored)" "$plane" "<= 10 s"
	else
		why=$(grep -m1 -o 'port 19000 is in use[^,]*' "$work/plane.err" "$work/last.log" 2>/dev/null | head -1 | cut -d: -f2-)
		printf '%-58s | not measured: %s\n' "local plane: start to Management ready + 1 step, warm" "${why:-$(grep -m1 'FAIL' "$work/plane.err" || echo "the run failed")}"
	fi
fi

# The first cluster after go install with a network: setup-envtest's index
# and archive served in process; baseline: the binaries already cached.
row "first local cluster ready from an empty cache (download)" "binaries cached" "$(secs FirstStartDownload/warm)" "download (in-process index)" "$(secs FirstStartDownload/download)" "<= 30 s (+ runbook)"

# A page of 20 trivial shell blocks run in process, against bash running
# the same commands as one script (issue 39's target), from the Go
# benchmark that runs both in turn.
out=$(go test -run '^$' -bench 'ShellPage20$' -benchtime 1000x ./internal/runner 2>&1) || { echo "$out"; exit 1; }
ms() { echo "$out" | awk -v k="$1" '/^BenchmarkShellPage20/ { for (i = 2; i <= NF; i++) if ($i == k) print $(i-1) }'; }
printf '%-58s | %-27s %6.2fms | %-23s %6.2fms | %5.2fx | %-22s | load %s\n' "a page of 20 trivial shell blocks, in process" "bash, the same as one script" "$(ms bash-ms/op)" "kbook" "$(ms kbook-ms/op)" "$(ms x-bash)" "<= 2x" "$(load)"
