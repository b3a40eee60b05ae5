// The TypeScript MCP SDK's client driving `toolret gateway` over stdio, as a 2025-11-25 client.
// tests/test_gateway_typescript.py runs it. Each step prints one JSON line on stdout; the steps
// that wait for the test ("change", "kill") read one line from stdin first.
//
// usage: node gateway-client.mjs <toolret> <gateway config> <file to read>
import { createInterface } from "node:readline";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [toolret, config, file] = process.argv.slice(2);
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const say = (step, body) => console.log(JSON.stringify({ step, ...body }));

const transport = new StdioClientTransport({
  command: toolret,
  args: ["gateway", "--config", config],
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client({ name: "toolret-test", version: "1.0.0" });
let changes = 0;
let changed = () => {};
client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
  changes += 1;
  changed();
});
const nextChange = () => new Promise((resolve) => (changed = resolve));

async function find(capability) {
  const result = await client.callTool({ name: "find_tools", arguments: { capabilities: [capability] } });
  const answer = result.structuredContent ?? JSON.parse(result.content[0].text);
  return { ...answer, tools: answer.results[0].tools };
}

// Wait on the gateway's notifications until `condition` holds.
async function until(condition) {
  for (;;) {
    const heard = nextChange();
    if (await condition()) return;
    await heard;
  }
}

await client.connect(transport);
const listed = await client.listTools();
say("listed", {
  server: client.getServerVersion(),
  names: listed.tools.map((tool) => tool.name),
  annotations: listed.tools.find((tool) => tool.name === "fs__read_text_file")?.annotations ?? null,
});

const found = await find("read the text of a file on disk");
say("found", { names: found.tools.map((tool) => tool.name), unavailable: found.unavailable });

const read = await client.callTool({
  name: "call_tool",
  arguments: { name: "fs__read_text_file", arguments: { path: file } },
});
say("read", { isError: read.isError ?? false, text: read.content[0].text });

const resources = await client.listResources();
const graph = resources.resources.find((resource) => resource.name === "memory__knowledge-graph");
const contents = graph ? await client.readResource({ uri: graph.uri }) : null;
say("resources", {
  names: resources.resources.map((resource) => resource.name),
  read: contents?.contents[0]?.text ?? null,
});

say("waiting", { for: "change" });
await lines.next();
await until(async () => {
  const moved = await find("move my meeting with Sam to Friday afternoon");
  return moved.tools.some((tool) => tool.name === "alpha__reschedule_event");
});
say("changed", { heard: changes });

say("waiting", { for: "kill" });
await lines.next();
await until(async () => (await find("remember that Sam prefers tea")).unavailable.length > 0);
const after = await find("remember that Sam prefers tea");
say("killed", { unavailable: after.unavailable, names: after.tools.map((tool) => tool.name) });

await client.close();
process.exit(0);
