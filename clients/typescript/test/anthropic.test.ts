// The Anthropic SDK, pinned, against the strict local Messages server, toolret live behind it.
import assert from "node:assert/strict";
import { test } from "node:test";

import Anthropic from "@anthropic-ai/sdk";

import { anthropicTurn, findToolsDefinition } from "../src/index.js";
import { client, crm, registration } from "./env.js";
import { MESSAGES, fakeUrl, mark, script, toolNames } from "./fake.js";

const ARABIC = "أريد حذف هذا العميل نهائيا";
const llm = () => new Anthropic({ baseURL: fakeUrl(), apiKey: "test", maxRetries: 0 });
const tools = (): Anthropic.Tool[] =>
  (registration().tools as { function: { name: string; description: string; parameters: Anthropic.Tool.InputSchema } }[]).map(
    ({ function: f }) => ({ name: f.name, description: f.description, input_schema: f.parameters }),
  );

test("a turn answers every tool_use, and what find_tools found is bound from the next round", async () => {
  const toolret = client();
  const log = await mark();
  await script(MESSAGES, {
    content: [
      { type: "text", text: "Let me look." },
      { type: "tool_use", id: "toolu_1", name: "find_tools", input: { capability: ARABIC } },
      { type: "tool_use", id: "toolu_2", name: "find_records", input: { query: "Acme" } },
    ],
    stop_reason: "tool_use",
  });
  await script(MESSAGES, { content: [{ type: "tool_use", id: "toolu_3", name: "delete_record", input: { id: "c_1" } }], stop_reason: "tool_use" });
  await script(MESSAGES, { content: [{ type: "text", text: "Deleted." }] });
  const ran: string[] = [];
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: "How many contacts do we have?" }];
  const anthropic = llm();
  const { reply, selection, rounds } = await anthropicTurn({
    toolret,
    catalog: crm(),
    tools: tools(),
    messages,
    select: { k: 3 },
    runTool: (name) => {
      ran.push(name);
      return `${name}: done`;
    },
    create: (request) => anthropic.messages.create({ model: "claude-fake", max_tokens: 256, ...request }),
  });
  assert.equal(rounds, 3);
  assert.deepEqual(reply.content, [{ type: "text", text: "Deleted." }]);
  assert.deepEqual(ran, ["find_records", "delete_record"]);
  const { requests, rejections } = await log();
  assert.deepEqual(rejections, []);
  assert.equal(requests.length, 3);
  const [first, second, third] = requests.map((request) => toolNames(request.body));
  assert.deepEqual(first, [...selection.names, "find_tools"]);
  assert.ok(!selection.names.includes("delete_record"), "the test needs a tool the selection left out");
  assert.ok(second!.includes("delete_record"), `${second}`);
  assert.deepEqual(second!.slice(0, first!.length - 1), selection.names, "the round's list extends the selection");
  assert.deepEqual(third, second);
  const answered = messages[2]!.content as Anthropic.ToolResultBlockParam[];
  assert.deepEqual(answered.map((block) => [block.type, block.tool_use_id]), [["tool_result", "toolu_1"], ["tool_result", "toolu_2"]]);

  await script(MESSAGES, { content: [{ type: "text", text: "Hello again." }] });
  messages.push({ role: "user", content: "thanks; how many contacts are left?" });
  const later = await anthropicTurn({
    toolret,
    catalog: crm(),
    tools: tools(),
    messages,
    select: { k: 3 },
    runTool: () => "",
    create: (request) => anthropic.messages.create({ model: "claude-fake", max_tokens: 256, ...request }),
  });
  const next = (await log()).requests.at(-1)!;
  assert.deepEqual(toolNames(next.body), [...later.selection.names, "find_tools"], "discoveries reset with the next human message");
});

test("the rules refuse what a loop gets wrong: a tool_use left unanswered, results after text", async () => {
  const anthropic = llm();
  const log = await mark();
  await script(MESSAGES, {
    content: [
      { type: "tool_use", id: "toolu_a", name: "find_tools", input: { capability: "delete a record" } },
      { type: "tool_use", id: "toolu_b", name: "find_records", input: { query: "Acme" } },
    ],
    stop_reason: "tool_use",
  });
  const tools = [findToolsDefinition("anthropic")];
  const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Delete the Acme contact" }];
  const reply = await anthropic.messages.create({ model: "claude-fake", max_tokens: 256, tools, messages });
  const result = (id: string): Anthropic.ToolResultBlockParam => ({ type: "tool_result", tool_use_id: id, content: "{}" });
  const unanswered = [...messages, { role: "assistant" as const, content: reply.content }, { role: "user" as const, content: [result("toolu_a")] }];
  await assert.rejects(anthropic.messages.create({ model: "claude-fake", max_tokens: 256, tools, messages: unanswered }), (error: unknown) => {
    assert.ok(error instanceof Anthropic.BadRequestError);
    assert.match(error.message, /tool_use` ids were found without `tool_result` blocks immediately after: toolu_b/);
    return true;
  });
  const late = [...messages, { role: "assistant" as const, content: reply.content }, { role: "user" as const, content: [{ type: "text" as const, text: "here" }, result("toolu_a"), result("toolu_b")] }];
  await assert.rejects(anthropic.messages.create({ model: "claude-fake", max_tokens: 256, tools, messages: late }), /at the beginning of this message/);
  assert.equal((await log()).rejections.length, 2);
});
