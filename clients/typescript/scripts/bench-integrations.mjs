// Each framework integration's per-turn work against a bare select, one caller, interleaved ABBA.
// Run by evals/perf/typescript.py (make bench), which starts the service:
//
//   node scripts/bench-integrations.mjs <input.json>    input: {url, registration, distinct: [...]}
//
// A turn is three model calls (the first, one after a find_tools call, one after another tool):
// the AI SDK's prepareStep for each step, or the LangChain middleware's wrapModelCall for each
// call (its handler returns at once: no model). Each turn's message is new to the integration,
// so a turn holds one select; the service has embedded every message before (its query cache),
// so what a select costs is HTTP and the query, in both paths. Prints, for each integration,
// {bare, turn, cached} in milliseconds per sample: a bare select, a whole turn, and a whole turn
// whose selection the integration already holds (its own work alone).
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool as lcTool } from "@langchain/core/tools";
import { jsonSchema, tool } from "ai";

import { ToolretClient } from "../dist/index.js";
import { aiSdkRetrieval, catalogFromAiSdk } from "../dist/ai-sdk.js";
import { catalogFromLangChain, toolretMiddleware } from "../dist/langchain.js";

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const toolret = new ToolretClient({ url: input.url, timeoutMs: 30_000 });
const functions = input.registration.tools.map((entry) => entry.function);
const options = { core: input.registration.core, examples: input.registration.examples };
const found = JSON.stringify({ results: [{ capability: "x", tools: [{ name: functions.at(-1).name, description: "" }] }] });

const aiTools = Object.fromEntries(
  functions.map((f) => [f.name, tool({ description: f.description, inputSchema: jsonSchema(f.parameters), execute: async () => "ok" })]),
);
const aiCatalog = await catalogFromAiSdk("roster", aiTools, options);
const aiSdk = await aiSdkRetrieval({ toolret, catalog: aiCatalog, tools: aiTools });

const lcTools = functions.map((f) => lcTool(async () => "ok", { name: f.name, description: f.description, schema: f.parameters }));
const lcCatalog = catalogFromLangChain("roster", lcTools, options);
const middleware = await toolretMiddleware({ toolret, catalog: lcCatalog });
const lcRequestTools = [...lcTools, ...middleware.tools];

function aiSdkSteps(message) {
  const user = { role: "user", content: message };
  const call = (id, name) => ({ role: "assistant", content: [{ type: "tool-call", toolCallId: id, toolName: name, input: {} }] });
  const result = (id, name, value) => ({ role: "tool", content: [{ type: "tool-result", toolCallId: id, toolName: name, output: { type: "text", value } }] });
  const first = [user];
  const second = [...first, call("c1", "find_tools"), result("c1", "find_tools", found)];
  const third = [...second, call("c2", functions[0].name), result("c2", functions[0].name, "ok")];
  return [first, second, third];
}

function langchainCalls(message) {
  const call = (id, name) => new AIMessage({ content: "", tool_calls: [{ id, name, args: {} }] });
  const result = (id, name, content) => new ToolMessage({ content, tool_call_id: id, name });
  const first = [new HumanMessage(message)];
  const second = [...first, call("c1", "find_tools"), result("c1", "find_tools", found)];
  const third = [...second, call("c2", functions[0].name), result("c2", functions[0].name, "ok")];
  return [first, second, third];
}

const integrations = {
  "ai-sdk": {
    steps: aiSdkSteps,
    async turn(steps) {
      for (const [stepNumber, messages] of steps.entries()) {
        const prepared = await aiSdk.prepareStep({ messages, stepNumber, steps: [] });
        if (prepared.activeTools === undefined) throw new Error("the AI SDK step fell open: the numbers would not compare");
      }
    },
  },
  langchain: {
    steps: langchainCalls,
    async turn(steps) {
      for (const messages of steps) {
        const sent = await middleware.wrapModelCall({ messages, tools: lcRequestTools, state: { messages } }, (request) => request.tools);
        if (sent.length >= lcRequestTools.length) throw new Error("the LangChain call fell open: the numbers would not compare");
      }
    },
  },
};

async function bare(message) {
  const selection = await toolret.select(aiCatalog, message);
  if (selection.mode !== "narrowed") throw new Error(`a selection fell open (${selection.mode}): the numbers would not compare`);
}

async function timed(run) {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

await toolret.registerCatalog(aiCatalog);
for (const message of input.distinct) await bare(message); // the service embeds each message once
const out = {};
for (const [name, integration] of Object.entries(integrations)) {
  const samples = { bare: [], turn: [], cached: [] };
  for (const [i, message] of input.distinct.entries()) {
    const steps = integration.steps(message);
    const pair = [["bare", () => bare(message)], ["turn", () => integration.turn(steps)]];
    for (const [kind, run] of i % 2 === 0 ? pair : [...pair].reverse()) samples[kind].push(await timed(run));
    samples.cached.push(await timed(() => integration.turn(steps)));
  }
  out[name] = samples;
}
console.log(JSON.stringify(out));
