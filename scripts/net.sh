# net.sh is sourced by the scripts here: it sets ETL_CORPUS, if unset, to
# the corpus next to the repository (../shared/corpus), and NET to
# net.4.5.2.x64.etl in it, the trace issue 24's figures are measured on.
: "${ETL_CORPUS:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../shared/corpus" 2>/dev/null && pwd)}"
NET=$ETL_CORPUS/microsoft+perfview/src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.etl.zip.unzipped/net.4.5.2.x64.etl
