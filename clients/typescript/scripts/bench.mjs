// select through ToolretClient against the same request with bare fetch, one caller, the two
// interleaved (ABBA). Run by evals/perf/typescript.py (make bench), which starts the service:
//
//   node scripts/bench.mjs <input.json>    input: {url, registration, distinct: [...], repeated, repeats}
//
// Prints {client: {distinct, repeated}, fetch: {distinct, repeated}}: milliseconds per select.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

import { ToolretClient, defineCatalog } from "../dist/index.js";

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const catalog = defineCatalog("roster", input.registration);
const toolret = new ToolretClient({ url: input.url, timeoutMs: 30_000 });

async function viaClient(message) {
  return (await toolret.select(catalog, message)).mode;
}

async function viaFetch(message) {
  const response = await fetch(`${input.url}/v1/select`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ catalog: "roster", message }),
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new Error(`toolret ${response.status}`);
  return (await response.json()).mode;
}

async function timed(path, message) {
  const started = performance.now();
  const mode = await path(message);
  const elapsed = performance.now() - started;
  if (mode !== "narrowed") throw new Error(`a selection fell open (${mode}): the numbers would not compare`);
  return elapsed;
}

const paths = [["client", viaClient], ["fetch", viaFetch]];
const out = { client: { distinct: [], repeated: [] }, fetch: { distinct: [], repeated: [] } };
for (const [, path] of paths) for (const warm of ["warm the connection", "and the model"]) await path(warm);
for (let i = 0; i + 1 < input.distinct.length; i += 2) {
  const order = (i / 2) % 2 === 0 ? paths : [...paths].reverse(); // each path its own messages
  for (const [index, [name, path]] of order.entries()) out[name].distinct.push(await timed(path, input.distinct[i + index]));
}
for (let i = 0; i < input.repeats; i += 1) {
  const order = i % 2 === 0 ? paths : [...paths].reverse();
  for (const [name, path] of order) out[name].repeated.push(await timed(path, input.repeated));
}
console.log(JSON.stringify(out));
