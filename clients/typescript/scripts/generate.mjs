// Regenerates src/openapi.ts from toolret serve's OpenAPI document.
//
//   node scripts/generate.mjs <openapi.json path or http URL> [output path]
//
// The output defaults to src/openapi.ts; tests/test_typescript_client.py runs this against the
// live service's /openapi.json and fails when the result differs from the checked-in file.
import { readFile, writeFile } from "node:fs/promises";
import openapiTS, { astToString } from "openapi-typescript";

const [source, output = new URL("../src/openapi.ts", import.meta.url)] = process.argv.slice(2);
if (!source) {
  console.error("usage: node scripts/generate.mjs <openapi.json | http://host:port/openapi.json> [out]");
  process.exit(2);
}
const document = source.startsWith("http")
  ? await (await fetch(source)).json()
  : JSON.parse(await readFile(source, "utf8"));
const header =
  "// Generated from toolret serve's /openapi.json by scripts/generate.mjs (openapi-typescript).\n" +
  "// Do not edit: regenerate it; a test fails when it drifts from the service.\n\n";
const ast = await openapiTS(document, { alphabetize: false, defaultNonNullable: false });
await writeFile(output, header + astToString(ast));
