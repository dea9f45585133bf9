#!/usr/bin/env bash
# pgo.sh [DIR]: makes cmd/tracerpt-go/default.pgo, the CPU profile that
# `go build` and `go install` of tracerpt-go optimise with (profile-guided
# optimisation, on by default for a main package's default.pgo). The
# profile is the merge of one run of each of the commands issue 24
# measures (the XML, CSV, JSON and Parquet dumps, stats, stacks, report,
# tables) over net.4.5.2.x64 written 16 times as long (compressed, as
# scripts/scale.sh makes it: c16.etl in DIR), by a binary built without a
# profile. Run it again when the hot code has changed a lot: a stale
# profile still builds and gives the same outputs, it only optimises less.
# docs/performance.md says what it gains.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/net.sh
DIR=${1:-${TMPDIR:-/tmp}/etwkit-scale}
mkdir -p "$DIR/pgo"
BIN=$DIR/pgo/tracerpt-go
go build -pgo=off -o "$BIN" ./cmd/tracerpt-go
make_etlgen "$DIR"
[ -f "$DIR/c16.etl" ] || "$DIR/etlgen" -n 16 "$NET" "$DIR/c16.etl" 2>/dev/null
IN=$DIR/c16.etl
OUT=$DIR/pgo/out
prof() { # prof NAME ARGS...: one profiled run, its output removed
	local name=$1; shift
	rm -rf "$OUT".*
	echo "pgo.sh: $name" >&2
	TRACERPT_GO_CPUPROFILE="$DIR/pgo/$name.prof" "$BIN" "$@" >/dev/null
	rm -rf "$OUT".*
}
prof xml "$IN" -of XML -o "$OUT.xml" -y --quiet
prof csv "$IN" -of CSV -o "$OUT.csv" -y --quiet
prof json "$IN" -of JSON -o "$OUT.json" -y --quiet
prof parquet "$IN" -of PARQUET -o "$OUT.parquet" -y --quiet
prof stats stats "$IN"
prof stacks stacks "$IN" -o "$OUT.folded" -y
prof report report "$IN" -o "$OUT.html" -y
prof tables tables "$IN" -o "$OUT.tables" -y --quiet
go tool pprof -proto "$DIR"/pgo/{xml,csv,json,parquet,stats,stacks,report,tables}.prof >cmd/tracerpt-go/default.pgo
echo "pgo.sh: wrote cmd/tracerpt-go/default.pgo ($(wc -c <cmd/tracerpt-go/default.pgo) bytes)" >&2
