// Runs SQL queries with DuckDB (npm @duckdb/node-api) for the Go tests
// (cmd/tracerpt-go TestCorpusDuckDB): reads a JSON array of queries on
// standard input and writes a JSON array with, per query, its rows as
// objects (BIGINT and HUGEINT values as strings) or {"error": message}.
import { DuckDBInstance } from '@duckdb/node-api';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const queries = JSON.parse(input);
const instance = await DuckDBInstance.create(':memory:');
const con = await instance.connect();
const results = [];
for (const q of queries) {
  try {
    const reader = await con.runAndReadAll(q);
    results.push(reader.getRowObjectsJson());
  } catch (e) {
    results.push({ error: String(e && e.message || e) });
  }
}
process.stdout.write(JSON.stringify(results) + '\n');
