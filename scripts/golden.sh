#!/usr/bin/env bash
# golden.sh: every output of tracerpt-go for every corpus trace, to check
# that a change leaves outputs byte-identical (docs/performance.md quotes
# it after each speed or memory change).
#
#   scripts/golden.sh make BIN DIR       write BIN's outputs into DIR
#                                        (deleted first, whatever it
#                                        holds)
#   scripts/golden.sh compare BIN DIR    make BIN's outputs in a temporary
#                                        folder and name each file that
#                                        differs from DIR's; exit status 1
#                                        when one does
#
# Typical use: build the binary of main before the change, `make` its
# outputs once, then `compare` each binary of the change against them:
#
#   git worktree add /tmp/base-src main
#   (cd /tmp/base-src && go build -o /tmp/base/tracerpt-go ./cmd/tracerpt-go)
#   scripts/golden.sh make /tmp/base/tracerpt-go /tmp/golden-base
#   go build -o /tmp/new/tracerpt-go ./cmd/tracerpt-go
#   scripts/golden.sh compare /tmp/new/tracerpt-go /tmp/golden-base
#
# Per trace: the XML, CSV, JSON (with and without analysis), Parquet and
# split Parquet dumps, the summary, stats, stacks (folded, speedscope,
# pprof), report (JSON, HTML), pcapng, info, providers and tables, with
# each run's standard output, standard error and exit status; then merges
# of several traces and selections. The corpus is $ETL_CORPUS (default
# ../shared/corpus beside the repository). About 730 MB of outputs; a
# compare deletes its own unless KEEP=1.
set -uo pipefail
# BIN and DIR are taken from the caller's folder; the corpus defaults to
# ../shared/corpus beside the repository.
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/net.sh"
C=$ETL_CORPUS
TRACE_USER=$C/jtbraun+pyetw/history/fc5ad561fea7628e48e3d1771fe6c208c593a6c8/user.etl
PKTMON=$C/NeoChenjf+Finguard/PktMon.etl
MYTRACE=$C/Marissa1999+Tracing-Application/mytrace.etl

make_outputs() { # BIN OUT
	local BIN=$1 OUT=$2 i=0 d f
	[ -d "$C" ] || { echo "golden.sh: no corpus: set ETL_CORPUS" >&2; exit 2; }
	rm -rf "$OUT" && mkdir -p "$OUT" || return 2
	run() { local n=$1; shift; "$BIN" "$@" >"$d/$n.out" 2>"$d/$n.err"; echo $? >"$d/$n.rc"; }
	while IFS= read -r -d '' f; do
		i=$((i + 1)); d="$OUT/$(printf %02d $i)"; mkdir -p "$d"; echo "${f#"$C"/}" >"$d/name"
		run xml "$f" -of XML -o "$d/dump.xml" -y --quiet
		run csv "$f" -of CSV -o "$d/dump.csv" -y --quiet
		run json "$f" -of JSON -o "$d/dump.json" -y --quiet
		run jsonna "$f" -of JSON --no-analysis -o "$d/dumpna.json" -y --quiet
		run pq "$f" -of PARQUET -o "$d/dump.parquet" -y --quiet
		run split "$f" -of PARQUET --split-by-event "$d/split" -y --quiet
		run summ "$f" -summary "$d/summary.txt" -y --quiet
		run stats stats "$f"
		run statsj stats --json "$f"
		run folded stacks "$f"
		run speed stacks --format speedscope "$f"
		run pprof stacks --format pprof "$f" -o "$d/prof.pb.gz" -y
		run repj report --json "$f" -o "$d/report.json" -y
		run reph report "$f" -o "$d/report.html" -y
		run pcap pcapng "$f" -o "$d/out.pcapng" -y
		run info info "$f"
		run infoj info --json "$f"
		run prov providers "$f"
		run provj providers --json "$f"
		run tables tables -o "$d/tables" --quiet "$f"
	done < <(find "$C" -name '*.etl' -print0 | sort -z)
	d="$OUT/multi"; mkdir -p "$d"
	run m "$TRACE_USER" "$PKTMON" "$MYTRACE" -of JSON -o "$d/m.json" -y --quiet
	run mx "$TRACE_USER" "$PKTMON" -of XML -o "$d/m.xml" -y --quiet
	run mp "$TRACE_USER" "$PKTMON" -of PARQUET -o "$d/m.parquet" -y --quiet
	run se stacks "$NET" --event Microsoft-Windows-DotNETRuntime/GC/Start
	run sp stacks "$NET" --pid 3676
	run pj "$NET" -of JSON --process Test.x64 --max-events 5000 -o "$d/proc.json" -y --quiet
	return 0
}

case "${1:-}" in
make)
	[ $# -eq 3 ] || { echo "usage: golden.sh make BIN DIR" >&2; exit 2; }
	make_outputs "$2" "$3"
	;;
compare)
	[ $# -eq 3 ] || { echo "usage: golden.sh compare BIN DIR" >&2; exit 2; }
	BASE=$3
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/golden.XXXXXX")
	make_outputs "$2" "$OUT"
	n=0
	# Files of one side only, then files that differ; standard error names
	# the output folder, which is each side's own.
	while IFS= read -r line; do echo "ONLY $line"; n=$((n + 1)); done < <(
		diff <(cd "$BASE" && find . -type f | sort) <(cd "$OUT" && find . -type f | sort) | sed -n 's/^[<>] //p')
	while IFS= read -r f; do
		[ -f "$OUT/$f" ] || continue
		cmp -s "$BASE/$f" "$OUT/$f" && continue
		if [[ $f == *.err ]]; then
			a=$(<"$BASE/$f") b=$(<"$OUT/$f")
			# The folder names replaced as text, not as patterns.
			[ "${a//"$BASE"/X}" = "${b//"$OUT"/X}" ] && continue
		fi
		echo "DIFF $f"; n=$((n + 1))
	done < <(cd "$BASE" && find . -type f | sort)
	if [ -n "${KEEP:-}" ]; then echo "outputs kept in $OUT"; else rm -rf "$OUT"; fi
	echo "$n differences"
	[ $n -eq 0 ]
	;;
*)
	sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac
