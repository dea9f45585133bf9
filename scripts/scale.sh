#!/usr/bin/env bash
# scale.sh [BIN] [DIR]: peak memory and CPU per event of tracerpt-go (BIN,
# default: built from this tree) at scale: net.4.5.2.x64 from the corpus
# written 1, 4 and 16 times as long (internal/cmd/etlgen: the events
# repeated, shifted by the trace's span each round), compressed as the
# input and plain, 16 inputs at once (and 64: JSON, stats), 1, 8 and 32
# inputs recorded one after another (stats, JSON), the corpus's
# kernel trace written 64 times over, and the hostile chunk traces of
# $ETL_ATTACK. Prints one
# line per run: the command, the input, the events, user+sys CPU
# seconds, CPU ns per event, wall seconds and peak RSS (MB).
# docs/performance.md quotes it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/net.sh
: "${ETL_ATTACK:=$ETL_CORPUS/../attack}"
DIR=${2:-${TMPDIR:-/tmp}/etwkit-scale}
mkdir -p "$DIR"
BIN=${1:-}
if [ -z "$BIN" ]; then
	BIN=$DIR/tracerpt-go
	go build -o "$BIN" ./cmd/tracerpt-go
fi
make_etlgen "$DIR"
EV1=$("$BIN" info --json "$NET" | sed -n 's/.*"events": *\([0-9]*\).*/\1/p' | head -1)
for n in 1 4 16; do
	[ -f "$DIR/c$n.etl" ] || "$DIR/etlgen" -n $n "$NET" "$DIR/c$n.etl" 2>/dev/null
	[ -f "$DIR/p$n.etl" ] || "$DIR/etlgen" -n $n -no-compress "$NET" "$DIR/p$n.etl" 2>/dev/null
done
INS=() INS64=() SEQ=()
for i in $(seq -w 1 64); do
	[ -f "$DIR/in$i.etl" ] || cp "$NET" "$DIR/in$i.etl"
	[ "$((10#$i))" -le 16 ] && INS+=("$DIR/in$i.etl")
	INS64+=("$DIR/in$i.etl")
done
# 32 inputs recorded one after another (etlgen -from: each a round later
# than the one before), as an AutoLogger sequence's.
for i in $(seq -w 0 31); do
	[ -f "$DIR/p$i-seq.etl" ] || "$DIR/etlgen" -n 1 -from $((10#$i)) "$NET" "$DIR/p$i-seq.etl" 2>/dev/null
	SEQ+=("$DIR/p$i-seq.etl")
done

# run NAME EVENTS ARGS...: one measured run (output to $DIR/out.*). The
# previous run's outputs are deleted first, untimed: replacing a file of
# gigabytes frees its pages in the final rename, which would be counted
# as this run's system time and wall (~73 ms for net.4.5.2's 173 MB JSON).
run() {
	local name=$1 events=$2; shift 2
	rm -rf "$DIR"/out.*
	/usr/bin/time -f '%U %S %e %M' -o "$DIR/time" "$BIN" "$@" >/dev/null 2>"$DIR/err" || echo "$name: exit $? ($(head -c 200 "$DIR/err"))"
	read -r u s e m <"$DIR/time"
	awk -v n="$name" -v ev="$events" -v u="$u" -v s="$s" -v e="$e" -v m="$m" \
		'BEGIN { c = u + s; printf "%-34s %9d ev  cpu %6.2f s  %6.0f ns/ev  wall %6.2f s  peak %5.0f MB\n", n, ev, c, ev ? c * 1e9 / ev : 0, e, m / 1024 }'
}

echo "# $BIN on $(nproc) cores, $(date -u +%F), load $(cut -d" " -f1-3 /proc/loadavg 2>/dev/null)"
for fmt in JSON XML CSV; do
	for n in 1 4 16; do
		run "$fmt compressed x$n" $((EV1 * n)) "$DIR/c$n.etl" -of $fmt -o "$DIR/out.$fmt" -y --quiet
		run "$fmt plain x$n" $((EV1 * n)) "$DIR/p$n.etl" -of $fmt -o "$DIR/out.$fmt" -y --quiet
	done
	run "$fmt 1 input" "$EV1" "${INS[0]}" -of $fmt -o "$DIR/out.$fmt" -y --quiet
	run "$fmt 16 inputs" $((EV1 * 16)) "${INS[@]}" -of $fmt -o "$DIR/out.$fmt" -y --quiet
done
for n in 1 16; do
	run "PARQUET compressed x$n" $((EV1 * n)) "$DIR/c$n.etl" -of PARQUET -o "$DIR/out.parquet" -y --quiet
done
run "PARQUET 16 inputs" $((EV1 * 16)) "${INS[@]}" -of PARQUET -o "$DIR/out.parquet" -y --quiet
for n in 1 16; do
	run "tables compressed x$n" $((EV1 * n)) tables "$DIR/c$n.etl" -o "$DIR/out.tables" -y --quiet
done
run "tables 16 inputs" $((EV1 * 16)) tables "${INS[@]}" -o "$DIR/out.tables" -y --quiet
for cmd in stats stacks; do
	run "$cmd 1 input" "$EV1" $cmd "${INS[0]}"
	run "$cmd 16 inputs" $((EV1 * 16)) $cmd "${INS[@]}"
	run "$cmd compressed x16" $((EV1 * 16)) $cmd "$DIR/c16.etl"
done
run "report 1 input" "$EV1" report --json "${INS[0]}" -o "$DIR/out.report.json" -y
run "report 16 inputs" $((EV1 * 16)) report --json "${INS[@]}" -o "$DIR/out.report.json" -y
run "report compressed x16" $((EV1 * 16)) report --json "$DIR/c16.etl" -o "$DIR/out.report.json" -y
# Past the issue's 16 inputs: 64 at once (the cost per event should stay
# that of one input; memory grows with the inputs recorded at the same
# time, docs/limits.md). To /dev/null: 64 inputs' JSON is 11 GB, whose
# writing back to the disk the kernel would charge to the run.
for n in 1 16 64; do
	run "JSON $n inputs, -o /dev/null" $((EV1 * n)) "${INS64[@]:0:n}" -of JSON -o /dev/null -y --quiet
done
run "stats 64 inputs" $((EV1 * 64)) stats "${INS64[@]}"
# Inputs one after another: the merge holds the buffers of the one being
# read (etl/park.go), not of all of them.
for n in 1 8 32; do
	run "stats $n inputs one after another" $((EV1 * n)) stats "${SEQ[@]:0:n}"
	run "JSON $n inputs one after another" $((EV1 * n)) "${SEQ[@]:0:n}" -of JSON -o /dev/null -y --quiet
done
# A model-heavy shape: the corpus's kernel trace (97 processes, 6,937
# image records, 1,537 threads in 17,076 events) written 64 times over,
# each round a new set of process, image and thread records: the model
# grows with the records, not the events (docs/limits.md).
SHUT=$ETL_CORPUS/airbus-cert+etl-parser/tests/example/ShutdownPerfDiagLogger.etl
if [ -f "$SHUT" ]; then
	[ -f "$DIR/k64.etl" ] || "$DIR/etlgen" -n 64 "$SHUT" "$DIR/k64.etl" 2>/dev/null
	EVK=$("$BIN" info --json "$DIR/k64.etl" | sed -n 's/.*"events": *\([0-9]*\).*/\1/p' | head -1)
	for fmt in JSON CSV PARQUET; do
		run "$fmt kernel x64" "$EVK" "$DIR/k64.etl" -of $fmt -o "$DIR/out.$fmt" -y --quiet
	done
	run "tables kernel x64" "$EVK" tables "$DIR/k64.etl" -o "$DIR/out.tables" -y --quiet
	run "stats kernel x64" "$EVK" stats "$DIR/k64.etl"
	run "report kernel x64" "$EVK" report --json "$DIR/k64.etl" -o "$DIR/out.report.json" -y
fi
if [ -d "$ETL_ATTACK" ]; then
	for f in "$ETL_ATTACK"/es_*.etl "$ETL_ATTACK"/bomb_*.etl "$ETL_ATTACK"/tl_deep_*.etl; do
		run "JSON $(basename "$f")" 0 "$f" -of JSON -o "$DIR/out.json" -y --quiet
	done
fi
