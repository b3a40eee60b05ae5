// The AI SDK (`ai`, `@ai-sdk/openai`), pinned, against the strict local Chat Completions server,
// a live `toolret serve` choosing the tools (TOOLRET_FAILURE=stopped: the service is stopped; hung: it never answers).
import assert from "node:assert/strict";
import { test } from "node:test";

import { createOpenAI } from "@ai-sdk/openai";
import { type ModelMessage, type ToolSet, generateText, isStepCount, jsonSchema, tool } from "ai";
import { z } from "zod";

import { aiSdkRetrieval, catalogFromAiSdk } from "../src/ai-sdk.js";
import { CatalogError, type ToolretError, UnknownCatalogError, toolNames, toolsNamed } from "../src/index.js";
import { client, registration } from "./env.js";
import { CHAT, fakeUrl, mark, script, toolNames as sentNames } from "./fake.js";

const DELETE = "أريد حذف هذا العميل نهائيا";
const EXPORT = "kayıtları CSV dosyası olarak dışa aktar";
const K = 3;
/** How the service is down, if it is: `stopped` (killed), `hung` (SIGSTOP: it accepts, never answers). */
const failure = process.env.TOOLRET_FAILURE;
const stopped = failure !== undefined;
const model = () => createOpenAI({ baseURL: `${fakeUrl()}/v1`, apiKey: "test" }).chat("gpt-fake");

/** The registration's tools as an AI SDK `ToolSet`, each run recorded in `ran`. */
function crmTools(ran: string[]): ToolSet {
  const entries = registration().tools as { function: { name: string; description: string; parameters: object } }[];
  return Object.fromEntries(
    entries.map(({ function: f }) => [
      f.name,
      tool({
        description: f.description,
        inputSchema: jsonSchema<Record<string, unknown>>(f.parameters),
        execute: async (input) => {
          ran.push(f.name);
          return { ok: true, tool: f.name, input };
        },
      }),
    ]),
  );
}

async function setUp(name: string, { register = true, errors = [] as ToolretError[] } = {}) {
  const ran: string[] = [];
  const tools = crmTools(ran);
  const { core, examples } = registration();
  const catalog = await catalogFromAiSdk(name, tools, { core, examples });
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
  const retrieval = await aiSdkRetrieval({ toolret: counted, catalog, tools, k: K, onError });
  return { ran, tools, catalog, retrieval, selects: () => selects, finds: () => finds };
}

const user = (content: string): ModelMessage => ({ role: "user", content });

if (!stopped) {
  test("a turn reaches tools the selection left out through find_tools, one selection for its steps", async () => {
    const { ran, catalog, retrieval, selects } = await setUp("crm-ai");
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
    const messages = [user("How many contacts do we have?")];
    const result = await generateText({
      model: model(),
      messages,
      tools: retrieval.tools,
      prepareStep: retrieval.prepareStep,
      stopWhen: isStepCount(6),
    });
    assert.equal(result.text, "Done.");
    assert.deepEqual(ran, ["find_records", "delete_record", "export_records"]);
    assert.equal(selects(), 1, "one selection for the turn's three steps");
    const { requests, rejections } = await log();
    assert.deepEqual(rejections, []);
    const [first, second, third] = requests.map((request) => sentNames(request.body));
    const selection = await retrieval.selector.selection(messages);
    assert.equal(selection.mode, "narrowed");
    assert.ok(first!.length <= catalog.core.length + K + 1, `more than core + k + find_tools bound: ${first}`);
    assert.deepEqual(first!.slice(0, catalog.core.length), [...catalog.core], "core tools first");
    assert.deepEqual([...first!].sort(), [...selection.names, "find_tools"].sort());
    for (const name of ["delete_record", "export_records"]) {
      assert.ok(!first!.includes(name), `the test needs ${name} left out of the selection`);
      assert.ok(second!.includes(name), `${name} not bound after find_tools: ${second}`);
    }
    assert.deepEqual(second!.slice(0, first!.length), first, "a step's tools extend the last step's");
    assert.deepEqual(third, second);

    await script(CHAT, { content: "You have 12." });
    const next = [...messages, ...result.response.messages, user("thanks; how many contacts are left?")];
    await generateText({ model: model(), messages: next, tools: retrieval.tools, prepareStep: retrieval.prepareStep });
    const later = await retrieval.selector.selection(next);
    const sent = sentNames((await log()).requests.at(-1)!.body);
    assert.deepEqual([...sent].sort(), [...later.names, "find_tools"].sort(), "discoveries forgotten with the next human message");
    assert.equal(selects(), 2);
  });

  test("stable(list) keeps a conversation's tools growing by prefix across turns", async () => {
    const { retrieval } = await setUp("crm-ai-stable");
    const log = await mark();
    const list: string[] = [];
    await script(CHAT, { tool_calls: [{ id: "call_1", name: "find_tools", arguments: { capabilities: [DELETE] } }] });
    await script(CHAT, { content: "Found it." });
    const messages = [user("How many contacts do we have?")];
    const first = await generateText({ model: model(), messages, tools: retrieval.tools, prepareStep: retrieval.stable(list), stopWhen: isStepCount(4) });
    const afterFirst = [...list];
    assert.ok(afterFirst.includes("delete_record"), `${afterFirst}`);
    await script(CHAT, { content: "Exported." });
    const next = [...messages, ...first.response.messages, user(EXPORT)];
    await generateText({ model: model(), messages: next, tools: retrieval.tools, prepareStep: retrieval.stable(list) });
    const { requests, rejections } = await log();
    assert.deepEqual(rejections, []);
    const [one, two, three] = requests.map((request) => sentNames(request.body));
    assert.deepEqual(two!.slice(0, one!.length), one);
    assert.deepEqual(three!.slice(0, two!.length), two, "the next turn extends the last one's list");
    assert.deepEqual(list.slice(0, afterFirst.length), afterFirst);
    assert.ok(list.includes("export_records") && three!.includes("export_records"), `${list}`);
  });
}

test("zod tools make a catalog as the AI SDK sends them, and selections narrow them with their own types", async () => {
  const tools = {
    add_note: tool({
      description: "Add a note to a record, such as a summary of a call or a meeting.",
      inputSchema: z.object({ record: z.string().describe("The record's id"), text: z.string() }),
      execute: async ({ text }) => text.length,
    }),
    archive_record: tool({
      description: "Archive a record so it no longer shows up in lists, without deleting it.",
      inputSchema: z.object({ record: z.string() }),
      execute: async ({ record }) => ({ archived: record }),
    }),
  };
  const catalog = await catalogFromAiSdk("notes", tools, { core: ["add_note"] });
  assert.deepEqual([catalog.names, catalog.core], [["add_note", "archive_record"], ["add_note"]]);
  const [note] = catalog.registration!.tools as { function: { parameters: { properties: object; required: string[] } } }[];
  assert.deepEqual(Object.keys(note!.function.parameters.properties), ["record", "text"]);
  assert.deepEqual(note!.function.parameters.required, ["record", "text"]);
  const active: ("add_note" | "archive_record")[] = toolNames(tools, ["archive_record", "nope"]);
  assert.deepEqual(active, ["archive_record"]);
  const narrowed: Partial<typeof tools> = toolsNamed(tools, ["archive_record"]);
  assert.deepEqual(Object.keys(narrowed), ["archive_record"]);
});

if (stopped) {
  test(`with toolret ${failure}, the turn selects once, answers find_tools at once and completes with every tool`, async () => {
    const { ran, catalog, retrieval, selects, finds } = await setUp("crm-ai");
    const log = await mark();
    await script(CHAT, {
      tool_calls: [
        { id: "call_1", name: "find_tools", arguments: { capabilities: [DELETE] } },
        { id: "call_2", name: "delete_record", arguments: { id: "c_1" } },
      ],
    });
    await script(CHAT, { tool_calls: [{ id: "call_3", name: "export_records", arguments: { format: "csv" } }] });
    await script(CHAT, { content: "Deleted." });
    const result = await generateText({
      model: model(),
      messages: [user(DELETE)],
      tools: retrieval.tools,
      prepareStep: retrieval.prepareStep,
      stopWhen: isStepCount(4),
    });
    assert.equal(result.text, "Deleted.");
    assert.deepEqual(ran, ["delete_record", "export_records"]);
    const { requests, rejections } = await log();
    assert.deepEqual(rejections, []);
    assert.equal(requests.length, 3);
    for (const request of requests) assert.deepEqual([...sentNames(request.body)].sort(), [...catalog.names, "find_tools"].sort());
    const answered = result.steps[0]!.toolResults.find((part) => part.toolName === "find_tools");
    assert.match(String(answered?.output), /tool search is unavailable right now/);
    assert.equal(selects(), 1, "the turn's three steps and find_tools share one fallen-open selection");
    assert.equal(finds(), 0, "find_tools answered without asking a service that did not answer");
  });
}

if (!stopped) {
  test("a catalog never registered: every step gets every tool, and onError and one log line say why", async (t) => {
    const errors: ToolretError[] = [];
    const { catalog, retrieval, selects, finds } = await setUp("crm-ai-never-registered", { register: false, errors });
    const logged = t.mock.method(console, "error", () => undefined);
    const log = await mark();
    await script(CHAT, { tool_calls: [{ id: "call_1", name: "find_tools", arguments: { capabilities: [DELETE] } }] });
    await script(CHAT, { content: "Nothing found." });
    await script(CHAT, { content: "Still nothing." });
    const first = await generateText({ model: model(), messages: [user(DELETE)], tools: retrieval.tools, prepareStep: retrieval.prepareStep, stopWhen: isStepCount(4) });
    await generateText({ model: model(), messages: [user(EXPORT)], tools: retrieval.tools, prepareStep: retrieval.prepareStep });
    const { requests, rejections } = await log();
    assert.deepEqual(rejections, []);
    assert.equal(requests.length, 3);
    for (const request of requests) assert.deepEqual([...sentNames(request.body)].sort(), [...catalog.names, "find_tools"].sort());
    const answered = first.steps[0]!.toolResults.find((part) => part.toolName === "find_tools");
    assert.match(String(answered?.output), /tool search is unavailable right now/);
    assert.equal(errors.length, 2, "onError: once for each turn");
    assert.ok(errors.every((error) => error instanceof UnknownCatalogError), `${errors}`);
    assert.equal(selects(), 2);
    assert.equal(finds(), 0);
    const lines = logged.mock.calls.map((call) => String(call.arguments[0]));
    assert.equal(lines.length, 1, `${lines}`);
    assert.match(lines[0]!, /crm-ai-never-registered.*UnknownCatalogError.*registerCatalog/);
  });
}

test("a tool of yours named find_tools is refused beside toolret's, naming the fix", async () => {
  const own = tool({
    description: "Find the wiki pages that document one of the team's internal tools, by keyword.",
    inputSchema: jsonSchema<{ query: string }>({ type: "object", properties: { query: { type: "string" } } }),
    execute: async () => "no page",
  });
  const tools: ToolSet = { ...crmTools([]), find_tools: own };
  const catalog = await catalogFromAiSdk("crm-own-find", tools, { core: registration().core });
  await assert.rejects(aiSdkRetrieval({ toolret: client(), catalog, tools }), (error: unknown) => {
    assert.ok(error instanceof CatalogError);
    assert.equal(error.field, "tools");
    assert.match(error.message, /named "find_tools".*rename yours/);
    return true;
  });
});
