#!/bin/sh
# Soak: run the runbooks again and again, uncached, and count the failures
# (target 0). Usage: hack/soak.sh [RUNS] [K0RDENT_RUNS]  (default 10 and 5)
# Each batch runs once with -p 1 and once with -p 2. Set KBOOK (default
# bin/kbook) and CRD_FLAGS (default: what `make run` passes) to change them.
# The summary line per batch: "soak <what> -p N: R runs, F failed runs, B
# failed runbooks (P passed)"; the last line the failed runs in all. Exit 0
# when no run failed.
set -u
RUNS=${1:-10}
K0RDENT_RUNS=${2:-5}
KBOOK=${KBOOK:-bin/kbook}
K0RDENT=${K0RDENT:-v1.11.4}
K0RDENT_RUNBOOKS=${K0RDENT_RUNBOOKS:-"runbooks/custom-template.md runbooks/local-k0rdent.md runbooks/proprietary-provider-capi.md runbooks/upgrade-k0rdent.md"}
if [ -z "${CRD_FLAGS:-}" ]; then
	CRD_FLAGS="--k0rdent $K0RDENT --k0rdent-api-only"
	for d in ../shared/crds/k0rdent ../shared/crds/capi ../shared/crds/k0smotron; do
		[ -d "$d" ] && CRD_FLAGS_SHARED="${CRD_FLAGS_SHARED:-} --crds $d"
	done
	[ -n "${CRD_FLAGS_SHARED:-}" ] && CRD_FLAGS=$CRD_FLAGS_SHARED
fi
if [ ! -x "$KBOOK" ]; then
	echo "soak: $KBOOK is not built (make build, or set KBOOK)" >&2
	exit 2
fi
if [ ! -x "$(dirname "$KBOOK")/inventory-server" ]; then
	echo "soak: warning: $(dirname "$KBOOK")/inventory-server is not built (make build): the runbooks that exec it are skipped" >&2
fi
out=${SOAK_DIR:-bin/soak}
mkdir -p "$out"
total=0

# batch NAME N P FLAGS... : run kbook N times; count the runs that fail and
# the runbooks that fail in them (from each run's summary line, "kbook: P
# passed, F failed, S skipped"). A run without that line (kbook itself
# failed: bad flags, a cluster that did not start) counts as a failed run.
batch() {
	name=$1 n=$2 p=$3
	shift 3
	failed=0 runbooks=0 passed=0
	i=1
	while [ "$i" -le "$n" ]; do
		log="$out/$name-p$p-$i.log"
		ok=1
		"$KBOOK" run --no-cache -p "$p" --json "$out/$name-p$p-$i.json" "$@" >"$log" 2>&1 || ok=0
		summary=$(sed -n 's/^kbook: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2/p' "$log" | tail -1)
		if [ -n "$summary" ]; then
			passed=$((passed + ${summary% *}))
			runbooks=$((runbooks + ${summary#* }))
		fi
		if [ "$ok" -eq 0 ] || [ -z "$summary" ]; then
			failed=$((failed + 1))
			echo "soak $name -p $p run $i FAILED (log $log):"
			grep -E '^(FAIL|--- FAIL)|failed|^Error' "$log" | head -5
		fi
		i=$((i + 1))
	done
	echo "soak $name -p $p: $n runs, $failed failed runs, $runbooks failed runbooks ($passed passed)"
	total=$((total + failed))
}

batch runbooks "$RUNS" 1 $CRD_FLAGS runbooks/
batch runbooks "$RUNS" 2 $CRD_FLAGS runbooks/
# One full local plane per machine (CAPD's fixed port): kbook run --k0rdent
# waits for a plane another kbook or a test runs (plane.LockMachine).
batch k0rdent "$K0RDENT_RUNS" 1 --k0rdent "$K0RDENT" $K0RDENT_RUNBOOKS
batch k0rdent "$K0RDENT_RUNS" 2 --k0rdent "$K0RDENT" $K0RDENT_RUNBOOKS
echo "soak: $total failed runs in all"
[ "$total" -eq 0 ]
