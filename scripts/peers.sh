#!/usr/bin/env bash
# peers.sh PEERS BIN [BIN2] [ROUNDS]: issue 24's speed measure, the JSON
# and Parquet dumps of net.4.5.2.x64 against dissect.etl in paired runs
# on the same host at the same time. PEERS is the folder where
# ../shared/tools/peers/README.md sets dissect.etl up (its env.sh and
# run_dissect.py). Each round (default 5) times dissect, then for each
# format runs one dump whose time it discards, then each binary's dump
# twice, the binaries' order alternating by round.
#
# The discarded run is there because the first dump after dissect's
# 20 s of one busy processor is slow in the kernel whatever the binary
# (docs/performance.md, "Session 28": on a virtual machine that hands
# free memory back to its host, the memory touched again faults in the
# host): without it the ratio says more about which binary ran first.
#
# Prints each binary's median wall per format and its ratio to dissect's
# median (the issue's targets: ~111x for the JSON dump, ~75x for the
# Parquet dump, from its 100 and 150 ms against 210 ms = 53x).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
	echo "usage: scripts/peers.sh PEERS BIN [BIN2] [ROUNDS]" >&2
	exit 2
fi
PEERS=$(realpath "$1")
shift
BINS=("$(realpath "$1")")
shift
if [ $# -gt 0 ] && [ -x "$1" ] && [ ! -d "$1" ]; then
	BINS+=("$(realpath "$1")")
	shift
fi
ROUNDS=${1:-5}
. scripts/net.sh
if [ ! -f "$NET" ]; then
	echo "peers.sh: net.4.5.2.x64.etl not found under ETL_CORPUS ($ETL_CORPUS)" >&2
	exit 2
fi
if [ ! -f "$PEERS/env.sh" ] || [ ! -f "$PEERS/run_dissect.py" ]; then
	echo "peers.sh: no dissect.etl set up in $PEERS: ../shared/tools/peers/README.md says how" >&2
	exit 2
fi
DIR=$(mktemp -d "${TMPDIR:-/tmp}/etwkit-peers.XXXXXX")
trap 'rm -rf "$DIR"' EXIT

# timed KEY CMD...: runs CMD, its output to $DIR/out, and appends its
# wall seconds to $DIR/KEY ("" discards them).
timed() {
	local key=$1 s
	shift
	rm -f "$DIR/out"
	s=$EPOCHREALTIME
	"$@" >"$DIR/stdout" 2>"$DIR/err" || { echo "peers.sh: $*: exit $?: $(head -c 300 "$DIR/err")" >&2; exit 1; }
	if [ -n "$key" ]; then
		awk -v s="$s" -v e="$EPOCHREALTIME" 'BEGIN { print e - s }' >>"$DIR/$key"
	fi
}

echo "# peers.sh $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) processors, load $(cut -d' ' -f1-3 /proc/loadavg)"
for b in "${BINS[@]}"; do echo "# $b"; done
for r in $(seq "$ROUNDS"); do
	(cd "$PEERS" && . ./env.sh && timed dissect python3 run_dissect.py "$NET")
	for f in JSON Parquet; do
		timed "" "${BINS[0]}" "$NET" -of "$f" -o "$DIR/out" -y --quiet
		order=("${!BINS[@]}") # indices into BINS
		if [ $((r % 2)) -eq 0 ] && [ ${#BINS[@]} -gt 1 ]; then
			order=(1 0)
		fi
		for _ in 1 2; do
			for k in "${order[@]}"; do
				timed "$f.$k" "${BINS[$k]}" "$NET" -of "$f" -o "$DIR/out" -y --quiet
			done
		done
	done
	printf '.' >&2
done
echo >&2

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
D=$(median "$DIR/dissect")
printf '# dissect.etl: median %.2f s of %d runs\n' "$D" "$(wc -l <"$DIR/dissect")"
for f in JSON Parquet; do
	for j in "${!BINS[@]}"; do
		m=$(median "$DIR/$f.$j")
		awk -v f="$f" -v b="$(basename "${BINS[$j]}")" -v m="$m" -v d="$D" -v n="$(wc -l <"$DIR/$f.$j")" \
			'BEGIN { printf "%-8s %-28s median %.3f s of %d  %5.0fx dissect.etl\n", f, b, m, n, d / m }'
	done
done
