// Reads {transcripts, registrations} as JSON on stdin and prints what this package makes of them,
// for the Python side to compare with toolret's own reading.
import { readFileSync } from "node:fs";

import { type CatalogRegistration, defineCatalog, discoveredToolNames, findToolsDefinition, latestHumanText } from "../src/index.js";

const input = JSON.parse(readFileSync(0, "utf8")) as { transcripts: unknown[][]; registrations: CatalogRegistration[] };
const shapes = ["openai", "openai_responses", "anthropic", "gemini", "mcp"] as const;
console.log(
  JSON.stringify({
    discovered: input.transcripts.map((messages) => discoveredToolNames(messages)),
    latest: input.transcripts.map((messages) => latestHumanText(messages)),
    definitions: Object.fromEntries(shapes.map((shape) => [shape, findToolsDefinition(shape)])),
    catalogs: input.registrations.map((body) => {
      const catalog = defineCatalog("parity", body);
      return { names: catalog.names, core: catalog.core };
    }),
  }),
);
