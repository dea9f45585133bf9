# net.sh is sourced by the scripts here: it sets ETL_CORPUS, if unset, to
# the corpus next to the repository (../shared/corpus), and NET to
# net.4.5.2.x64.etl in it, the trace issue 24's figures are measured on.
: "${ETL_CORPUS:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../shared/corpus" 2>/dev/null && pwd)}"
NET=$ETL_CORPUS/microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl

# make_etlgen DIR: builds internal/cmd/etlgen into DIR/etlgen. The
# traces the scripts keep in DIR that etlgen wrote (c*.etl, p*.etl,
# k64.etl) are removed, to be written again, when this etlgen differs
# from the one that wrote them (its checksum in DIR/etlgen.sum; session
# 29: an etlgen that left the StackWalk payloads' timestamps unshifted
# made ×16 traces whose later rounds had no stacks).
make_etlgen() {
	go build -o "$1/etlgen" ./internal/cmd/etlgen
	local sum
	sum=$(sha256sum <"$1/etlgen")
	if [ "$(cat "$1/etlgen.sum" 2>/dev/null)" != "$sum" ]; then
		rm -f "$1"/c[0-9]*.etl "$1"/p[0-9]*.etl "$1/k64.etl"
		echo "$sum" >"$1/etlgen.sum"
	fi
}
