// LangChain.js (`langchain`'s createAgent on LangGraph.js, `@langchain/openai`), pinned, against the
// strict local Chat Completions server, a live `toolret serve` choosing the tools
// (TOOLRET_FAILURE=stopped: the service is stopped; hung: it never answers).
import assert from "node:assert/strict";
import { test } from "node:test";

import { MemorySaver } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { createAgent } from "langchain";
import { z } from "zod";

import { CatalogError, type ToolretError, UnknownCatalogError } from "../src/index.js";
import { STATE_KEY, catalogFromLangChain, toolretMiddleware } from "../src/langchain.js";
import { client, registration } from "./env.js";
import { CHAT, fakeUrl, mark, script, toolNames as sentNames } from "./fake.js";

const DELETE = "أريد حذف هذا العميل نهائيا";
const EXPORT = "kayıtları CSV dosyası olarak dışa aktar";
const K = 3;
/** How the service is down, if it is: `stopped` (killed), `hung` (SIGSTOP: it accepts, never answers). */
const failure = process.env.TOOLRET_FAILURE;
const stopped = failure !== undefined;
const model = () => new ChatOpenAI({ model: "gpt-fake", apiKey: "test", maxRetries: 0, configuration: { baseURL: `${fakeUrl()}/v1` } });

/** The registration's tools as LangChain tools, each run recorded in `ran`. */
function crmTools(ran: string[]): StructuredToolInterface[] {
  const entries = registration().tools as { function: { name: string; description: string; parameters: Record<string, unknown> } }[];
  return entries.map(({ function: f }) =>
    tool(
      async (input: unknown) => {
        ran.push(f.name);
        return JSON.stringify({ ok: true, tool: f.name, input });
      },
      { name: f.name, description: f.description, schema: f.parameters },
    ),
  );
}

async function setUp(name: string, stable = false, { register = true, errors = [] as ToolretError[] } = {}) {
  const ran: string[] = [];
  const tools = crmTools(ran);
  const { core, examples } = registration();
  const catalog = catalogFromLangChain(name, tools, { core, examples });
  const toolret = client({ timeoutMs: stopped ? 1500 : 60_000 });
  if (!stopped && register) await toolret.registerCatalog(catalog);
  let selects = 0;
  let finds = 0;
  const counted = {
    select: (...args: Parameters<typeof toolret.select>) => {
      selects += 1;
      return toolret.select(...args);
    },
    findTools: (...args: Parameters<typeof toolret.findTools>) => {
      finds += 1;
      return toolret.findTools(...args);
    },
    findToolsDefinition: toolret.findToolsDefinition.bind(toolret),
  };
  const onError = (error: ToolretError) => errors.push(error);
  const middleware = await toolretMiddleware({ toolret: counted, catalog, k: K, stable, onError });
  const agent = createAgent({ model: model(), tools, middleware: [middleware], checkpointer: new MemorySaver() });
  return { ran, catalog, agent, toolret, selects: () => selects, finds: () => finds };
}

if (!stopped) {
  test("a turn reaches tools the selection left out through find_tools, one selection for its model calls", async () => {
    const { ran, catalog, agent, toolret, selects } = await setUp("crm-lc");
    const log = await mark();
    await script(CHAT, {
      tool_calls: [
        { id: "call_1", name: "find_tools", arguments: { capabilities: [DELETE, EXPORT] } },
        { id: "call_2", name: "find_records", arguments: { query: "Acme" } },
      ],
    });
    await script(CHAT, {
      tool_calls: [
        { id: "call_3", name: "delete_record", arguments: { id: "c_1" } },
        { id: "call_4", name: "export_records", arguments: { format: "csv" } },
      ],
    });
    await script(CHAT, { content: "Done." });
    const thread = { configurable: { thread_id: "one" } };
    const result = await agent.invoke({ messages: [{ role: "user", content: "How many contacts do we have?" }] }, thread);
    assert.equal(result.messages.at(-1)?.content, "Done.");
    assert.deepEqual(ran.sort(), ["delete_record", "export_records", "find_records"]);
    assert.equal(selects(), 1, "one selection for the turn's three model calls");
    const { requests, rejections } = await log();
    assert.deepEqual(rejections, []);
    const [first, second, third] = requests.map((request) => sentNames(request.body));
    assert.ok(first!.length <= catalog.core.length + K + 1, `more than core + k + find_tools bound: ${first}`);
    assert.deepEqual(first!.slice(0, catalog.core.length), [...catalog.core], "core tools first");
    assert.ok(first!.includes("find_tools"));
    for (const name of ["delete_record", "export_records"]) {
      assert.ok(!first!.includes(name), `the test needs ${name} left out of the selection`);
      assert.ok(second!.includes(name), `${name} not bound after find_tools: ${second}`);
    }
    assert.deepEqual(second!.slice(0, first!.length), first, "a call's tools extend the last call's");
    assert.deepEqual(third, second);

    await script(CHAT, { content: "You have 12." });
    const thanks = "thanks; how many contacts are left?";
    await agent.invoke({ messages: [{ role: "user", content: thanks }] }, thread);
    const sent = sentNames((await log()).requests.at(-1)!.body);
    const later = await toolret.select(catalog, thanks, { k: K });
    assert.deepEqual([...sent].sort(), [...later.names, "find_tools"].sort(), "discoveries forgotten with the next human message");
    assert.equal(selects(), 2);
  });

  test("stable: the conversation's tools grow by prefix, kept in the agent state", async () => {
    const { agent } = await setUp("crm-lc-stable", true);
    const log = await mark();
    await script(CHAT, { tool_calls: [{ id: "call_1", name: "find_tools", arguments: { capabilities: [DELETE] } }] });
    await script(CHAT, { content: "Found it." });
    const thread = { configurable: { thread_id: "stable" } };
    const first = await agent.invoke({ messages: [{ role: "user", content: "How many contacts do we have?" }] }, thread);
    const kept = first[STATE_KEY] ?? [];
    assert.ok(kept.includes("delete_record"), `${kept}`);
    await script(CHAT, { content: "Exported." });
    const second = await agent.invoke({ messages: [{ role: "user", content: EXPORT }] }, thread);
    const { requests, rejections } = await log();
    assert.deepEqual(rejections, []);
    const [one, two, three] = requests.map((request) => sentNames(request.body));
    assert.deepEqual(two!.slice(0, one!.length), one);
    assert.deepEqual(three!.slice(0, two!.length), two, "the next turn extends the last one's list");
    assert.deepEqual((second[STATE_KEY] ?? []).slice(0, kept.length), kept);
    assert.ok(three!.includes("export_records"), `${three}`);
  });
}

test("zod tools make a catalog as LangChain sends them", () => {
  const note = tool(async ({ text }) => text, {
    name: "add_note",
    description: "Add a note to a record, such as a summary of a call or a meeting.",
    schema: z.object({ record: z.string().describe("The record's id"), text: z.string() }),
  });
  const catalog = catalogFromLangChain("notes", [note], { core: undefined });
  assert.deepEqual(catalog.names, ["add_note"]);
  const [entry] = catalog.registration!.tools as { function: { parameters: { properties: object } } }[];
  assert.deepEqual(Object.keys(entry!.function.parameters.properties), ["record", "text"]);
});

if (stopped) {
  test(`with toolret ${failure}, the turn selects once, answers find_tools at once and completes with every tool`, async () => {
    const { ran, catalog, agent, selects, finds } = await setUp("crm-lc");
    const log = await mark();
    await script(CHAT, {
      tool_calls: [
        { id: "call_1", name: "find_tools", arguments: { capabilities: [DELETE] } },
        { id: "call_2", name: "delete_record", arguments: { id: "c_1" } },
      ],
    });
    await script(CHAT, { tool_calls: [{ id: "call_3", name: "export_records", arguments: { format: "csv" } }] });
    await script(CHAT, { content: "Deleted." });
    const result = await agent.invoke({ messages: [{ role: "user", content: DELETE }] }, { configurable: { thread_id: "down" } });
    assert.equal(result.messages.at(-1)?.content, "Deleted.");
    assert.deepEqual(ran, ["delete_record", "export_records"]);
    const { requests, rejections } = await log();
    assert.deepEqual(rejections, []);
    assert.equal(requests.length, 3);
    for (const request of requests) assert.deepEqual([...sentNames(request.body)].sort(), [...catalog.names, "find_tools"].sort());
    const answer = result.messages.find((message) => message.type === "tool" && message.name === "find_tools");
    assert.match(String(answer?.content), /tool search is unavailable right now/);
    assert.equal(selects(), 1, "the turn's three model calls and find_tools share one fallen-open selection");
    assert.equal(finds(), 0, "find_tools answered without asking a service that did not answer");
  });
}

if (!stopped) {
  test("a catalog never registered: every call gets every tool, and onError and one log line say why", async (t) => {
    const errors: ToolretError[] = [];
    const { catalog, agent, selects, finds } = await setUp("crm-lc-never-registered", false, { register: false, errors });
    const logged = t.mock.method(console, "error", () => undefined);
    const log = await mark();
    await script(CHAT, { tool_calls: [{ id: "call_1", name: "find_tools", arguments: { capabilities: [DELETE] } }] });
    await script(CHAT, { content: "Nothing found." });
    await script(CHAT, { content: "Still nothing." });
    const thread = { configurable: { thread_id: "unregistered" } };
    const first = await agent.invoke({ messages: [{ role: "user", content: DELETE }] }, thread);
    await agent.invoke({ messages: [{ role: "user", content: EXPORT }] }, thread);
    const { requests, rejections } = await log();
    assert.deepEqual(rejections, []);
    assert.equal(requests.length, 3);
    for (const request of requests) assert.deepEqual([...sentNames(request.body)].sort(), [...catalog.names, "find_tools"].sort());
    const answer = first.messages.find((message) => message.type === "tool" && message.name === "find_tools");
    assert.match(String(answer?.content), /tool search is unavailable right now/);
    assert.equal(errors.length, 2, "onError: once for each turn");
    assert.ok(errors.every((error) => error instanceof UnknownCatalogError), `${errors}`);
    assert.equal(selects(), 2);
    assert.equal(finds(), 0);
    const lines = logged.mock.calls.map((call) => String(call.arguments[0]));
    assert.equal(lines.length, 1, `${lines}`);
    assert.match(lines[0]!, /crm-lc-never-registered.*UnknownCatalogError.*registerCatalog/);
  });
}

test("a tool of yours named find_tools is refused beside toolret's, naming the fix", async () => {
  const own = tool(async () => "no page", {
    name: "find_tools",
    description: "Find the wiki pages that document one of the team's internal tools, by keyword.",
    schema: z.object({ query: z.string() }),
  });
  const catalog = catalogFromLangChain("crm-own-find", [...crmTools([]), own], { core: registration().core });
  await assert.rejects(toolretMiddleware({ toolret: client(), catalog }), (error: unknown) => {
    assert.ok(error instanceof CatalogError);
    assert.match(error.message, /named "find_tools".*rename yours/);
    return true;
  });
});
