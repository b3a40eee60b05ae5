// The OpenAI SDK, pinned, against the strict local Chat Completions and Responses servers.
import assert from "node:assert/strict";
import { test } from "node:test";

import OpenAI from "openai";

import { findToolsDefinition, openaiChatTurn, openaiResponsesTurn } from "../src/index.js";
import { client, crm, registration } from "./env.js";
import { CHAT, RESPONSES, fakeUrl, mark, script, toolNames } from "./fake.js";

const ARABIC = "أريد حذف هذا العميل نهائيا";
const llm = () => new OpenAI({ baseURL: `${fakeUrl()}/v1`, apiKey: "test", maxRetries: 0 });
const chatTools = () => registration().tools as OpenAI.ChatCompletionFunctionTool[];
const responsesTools = (): OpenAI.Responses.FunctionTool[] =>
  chatTools().map(({ function: f }) => ({ type: "function", name: f.name, description: f.description ?? null, parameters: f.parameters ?? null, strict: null }));

test("a Chat Completions turn answers every tool call, discoveries bound from the next round", async () => {
  const toolret = client();
  const log = await mark();
  await script(CHAT, {
    tool_calls: [
      { id: "call_1", name: "find_tools", arguments: { capabilities: [ARABIC] } },
      { id: "call_2", name: "find_records", arguments: { query: "Acme" } },
    ],
  });
  await script(CHAT, { tool_calls: [{ id: "call_3", name: "delete_record", arguments: { id: "c_1" } }] });
  await script(CHAT, { content: "Deleted." });
  const openai = llm();
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "How many contacts do we have?" }];
  const ran: [string, unknown][] = [];
  const { reply, selection } = await openaiChatTurn({
    toolret,
    catalog: crm(),
    tools: chatTools(),
    messages,
    select: { k: 3 },
    runTool: (name, input) => {
      ran.push([name, input]);
      return { ok: true };
    },
    create: (request) => openai.chat.completions.create({ model: "gpt-fake", ...request }),
  });
  assert.equal(reply.choices[0]?.message.content, "Deleted.");
  assert.deepEqual(ran, [["find_records", { query: "Acme" }], ["delete_record", { id: "c_1" }]]);
  const { requests, rejections } = await log();
  assert.deepEqual(rejections, []);
  const [first, second] = requests.map((request) => toolNames(request.body));
  assert.deepEqual(first, [...selection.names, "find_tools"]);
  assert.ok(!first!.includes("delete_record") && second!.includes("delete_record"), `${second}`);
  assert.deepEqual(messages.slice(2, 4).map((m) => [m.role, (m as { tool_call_id?: string }).tool_call_id]), [["tool", "call_1"], ["tool", "call_2"]]);
});

test("a find_tools call with two capabilities binds the tools of both on the next round", async () => {
  const toolret = client();
  const log = await mark();
  const capabilities = [ARABIC, "kayıtları CSV dosyası olarak dışa aktar"];
  await script(CHAT, { tool_calls: [{ id: "call_1", name: "find_tools", arguments: { capabilities } }] });
  await script(CHAT, { content: "Done." });
  const openai = llm();
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "How many contacts do we have?" }];
  const { selection } = await openaiChatTurn({
    toolret,
    catalog: crm(),
    tools: chatTools(),
    messages,
    select: { k: 3 },
    runTool: () => "",
    create: (request) => openai.chat.completions.create({ model: "gpt-fake", ...request }),
  });
  const answer = JSON.parse((messages[2] as { content: string }).content) as { error?: string; results: { tools: { name: string }[] }[] };
  assert.equal(answer.error, undefined, `find_tools answered an error: ${answer.error}`);
  assert.deepEqual(answer.results.map((result) => result.tools.length > 0), [true, true]);
  const { requests, rejections } = await log();
  assert.deepEqual(rejections, []);
  const second = toolNames(requests[1]!.body);
  for (const name of ["delete_record", "export_records"]) {
    assert.ok(!selection.names.includes(name), `the test needs ${name} left out of the selection`);
    assert.ok(second.includes(name), `${name} not bound after find_tools: ${second}`);
  }
});

test("the rules refuse a Chat Completions tool call left unanswered", async () => {
  const openai = llm();
  await script(CHAT, {
    tool_calls: [
      { id: "call_a", name: "find_tools", arguments: { capabilities: ["delete"] } },
      { id: "call_b", name: "find_records", arguments: {} },
    ],
  });
  const tools = [findToolsDefinition("openai")];
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Delete the Acme contact" }];
  const reply = await openai.chat.completions.create({ model: "gpt-fake", tools, messages });
  messages.push(reply.choices[0]!.message, { role: "tool", tool_call_id: "call_a", content: "{}" });
  await assert.rejects(openai.chat.completions.create({ model: "gpt-fake", tools, messages }), (error: unknown) => {
    assert.ok(error instanceof OpenAI.BadRequestError);
    assert.match(error.message, /did not have response messages: call_b/);
    return true;
  });
});

const reasoning = { type: "reasoning", id: "rs_1", summary: [] };
const functionCall = (id: string, name: string, args: unknown) => ({
  type: "function_call",
  id: `fc_${id}`,
  call_id: `call_${id}`,
  name,
  arguments: JSON.stringify(args),
  status: "completed",
});
const said = (text: string) => ({
  type: "message",
  id: "msg_1",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text, annotations: [] }],
});

test("a Responses turn sends the output back whole and answers every function call", async () => {
  const toolret = client();
  const log = await mark();
  await script(RESPONSES, { output: [reasoning, functionCall("1", "find_tools", { capabilities: [ARABIC] }), functionCall("2", "find_records", { query: "Acme" })] });
  await script(RESPONSES, { output: [functionCall("3", "delete_record", { id: "c_1" })] });
  await script(RESPONSES, { output: [said("Deleted.")] });
  const openai = llm();
  const items: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: "How many contacts do we have?" }];
  const { reply, selection, rounds } = await openaiResponsesTurn({
    toolret,
    catalog: crm(),
    tools: responsesTools(),
    messages: items,
    select: { k: 3 },
    runTool: (name) => `${name}: done`,
    create: (request) => openai.responses.create({ model: "gpt-5.4", ...request }),
  });
  assert.equal(rounds, 3);
  assert.equal(reply.output_text, "Deleted.");
  const { requests, rejections } = await log();
  assert.deepEqual(rejections, []);
  const [first, second] = requests.map((request) => toolNames(request.body));
  assert.deepEqual(first, [...selection.names, "find_tools"]);
  assert.ok(second!.includes("delete_record"), `${second}`);
  assert.deepEqual(items.slice(1, 6).map((item) => (item as { type: string }).type), ["reasoning", "function_call", "function_call", "function_call_output", "function_call_output"]);
});

test("the rules refuse a Responses call sent back without its reasoning item, or unanswered", async () => {
  const openai = llm();
  await script(RESPONSES, { output: [reasoning, functionCall("a", "find_tools", { capabilities: ["x"] }), functionCall("b", "find_records", {})] });
  const tools = [findToolsDefinition("openai_responses")];
  const items: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: "Delete the Acme contact" }];
  const response = await openai.responses.create({ model: "gpt-5.4", input: items, tools });
  const output = (id: string): OpenAI.Responses.ResponseInputItem => ({ type: "function_call_output", call_id: id, output: "{}" });
  const calls = response.output.filter((item) => item.type === "function_call");
  await assert.rejects(openai.responses.create({ model: "gpt-5.4", tools, input: [...items, ...(calls as OpenAI.Responses.ResponseInputItem[]), output("call_a"), output("call_b")] }), /without its required 'reasoning' item: 'rs_1'/);
  await assert.rejects(openai.responses.create({ model: "gpt-5.4", tools, input: [...items, ...(response.output as OpenAI.Responses.ResponseInputItem[]), output("call_a")] }), (error: unknown) => {
    assert.ok(error instanceof OpenAI.BadRequestError);
    assert.match(error.message, /No tool output found for function call call_b/);
    return true;
  });
});
