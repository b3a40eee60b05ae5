// The client against a live toolret serve on the real Postgres and the bundled model.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ForbiddenError,
  InvalidRequestError,
  UnauthorizedError,
  UnknownCatalogError,
  answerFindTools,
  defineCatalog,
  discoveredToolNames,
} from "../src/index.js";
import { client, crm, env, readJson, registration, writeJson } from "./env.js";

const ENGLISH = "Delete the duplicate contact for Acme Corp";
const ARABIC = "احذف جهة الاتصال المكررة";

test("registers a catalog, then selects in English and Arabic", async () => {
  const toolret = client();
  const registered = await toolret.registerCatalog(crm());
  assert.equal(registered.catalog, "crm");
  assert.equal(registered.indexing.state, "indexed");
  assert.equal(registered.tools, crm().names.length);
  for (const message of [ENGLISH, ARABIC]) {
    const selection = await toolret.select(crm(), message);
    assert.equal(selection.mode, "narrowed", message);
    assert.equal(selection.reason, null);
    assert.ok(selection.names.includes("delete_record"), `${message}: ${selection.names}`);
    assert.ok(selection.names.length < crm().names.length);
    for (const core of crm().core) assert.ok(selection.names.includes(core));
  }
});

test("selections for the Python side to compare with client.select", async () => {
  const toolret = client();
  const messages = readJson<string[]>("TOOLRET_MESSAGES");
  const out = [];
  for (const message of messages) {
    for (const k of [undefined, 5]) out.push({ message, k: k ?? null, selection: await toolret.select(crm(), message, { k }) });
  }
  writeJson("TOOLRET_OUT", out);
});

test("a cache-stable list grows, and the full roster is the one the client falls open to", async () => {
  const toolret = client();
  const first = await toolret.select(crm(), ENGLISH, { k: 4, bound: [] });
  assert.deepEqual(first.names.slice(0, crm().core.length), [...crm().core]);
  const second = await toolret.select(crm(), "export every deal closed last quarter to a file", { k: 4, bound: first.names });
  assert.deepEqual(second.names.slice(0, first.names.length), first.names);
  const resumed = await toolret.select(crm(), ENGLISH, { resume: true });
  assert.deepEqual([resumed.mode, resumed.reason], ["full", "resume"]);
  assert.deepEqual(resumed.names, [...crm().names], "the service's roster order is the catalog's");
  const resumedStable = await toolret.select(crm(), ENGLISH, { resume: true, bound: second.names });
  assert.deepEqual(resumedStable.names.slice(0, second.names.length), second.names);
});

test("an MCP catalog's names are the service's, long ones included", async () => {
  const toolret = client();
  const long = "x".repeat(70);
  const body = {
    format: "mcp" as const,
    servers: {
      "files.v2": { tools: [{ name: "read file", description: "Read a text file from the workspace by its path and return its contents." }] },
      crm: [
        { name: long, description: "A tool whose name is longer than model APIs allow, so it is cut with a hash." },
        { name: "search", description: "Search the CRM records by a free-text query and return matches." },
      ],
    },
    core: ["search"],
  };
  const catalog = defineCatalog("crm-mcp", body);
  await toolret.registerCatalog(catalog);
  const resumed = await toolret.select(catalog, "anything", { resume: true });
  assert.deepEqual(resumed.names, [...catalog.names]);
  assert.deepEqual(catalog.core, ["crm__search"]);
  assert.ok(catalog.names.every((name) => name.length <= 64));
});

test("finds tools in any language, none already bound, and reads them back from the turn", async () => {
  const toolret = client();
  const found = await toolret.findTools(crm(), "أريد حذف هذا العميل نهائيا", { bound: ["create_record"] });
  assert.equal(found.reason ?? null, null);
  assert.equal(found.tools[0]?.name, "delete_record");
  assert.ok(found.tools.length <= 5);
  assert.ok(!found.tools.some((tool) => tool.name === "create_record"));
  const answer = await answerFindTools(toolret, crm(), '{"capabilities": ["kayıtları CSV dosyası olarak dışa aktar"]}');
  const names = (JSON.parse(answer) as { results: { tools: { name: string }[] }[] }).results[0]!.tools.map((tool) => tool.name);
  assert.ok(names.includes("export_records"), names.join());
  const messages = [
    { role: "user", content: "send me my contacts as a spreadsheet" },
    { role: "assistant", content: null, tool_calls: [{ id: "a", type: "function", function: { name: "find_tools", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "a", content: answer },
  ];
  assert.deepEqual(discoveredToolNames(messages), names);
  assert.deepEqual(discoveredToolNames([...messages, { role: "user", content: "thanks" }]), []);
  const blank = await answerFindTools(toolret, crm(), { capabilities: ["  "] });
  assert.match(JSON.parse(blank).error, /call find_tools with/);
});

test("one find_tools call ranks several capabilities, each its own tools, none twice", async () => {
  const toolret = client();
  const capabilities = ["أريد حذف هذا العميل نهائيا", "kayıtları CSV dosyası olarak dışa aktar", "merge two duplicate records"];
  const answer = JSON.parse(await answerFindTools(toolret, crm(), { capabilities }, { bound: ["find_records"] })) as {
    error?: string;
    results: { capability: string; tools: { name: string }[] }[];
  };
  assert.equal(answer.error, undefined, `find_tools answered an error: ${answer.error}`);
  assert.deepEqual(answer.results.map((result) => result.capability), capabilities);
  const names = answer.results.flatMap((result) => result.tools.map((tool) => tool.name));
  assert.equal(new Set(names).size, names.length, "a tool listed under two capabilities");
  for (const result of answer.results) assert.ok(result.tools.length > 0 && result.tools.length <= 5, result.capability);
  assert.equal(answer.results[0]!.tools[0]!.name, "delete_record");
  assert.ok(names.includes("export_records") && names.includes("merge_records"), names.join());
  assert.ok(!names.some((name) => crm().core.includes(name)), "core tools are always bound: never found");
});

test("feedback reaches the service", async () => {
  const toolret = client();
  const selection = await toolret.select(crm(), ENGLISH);
  const answer = await toolret.feedback(crm(), selection, ["delete_record"], { message: ENGLISH });
  assert.deepEqual(answer, { queued: false, reason: "no_queue" }, "this service has no worker queue");
});

test("what the caller got wrong is a typed error carrying the service's error, detail and field", async () => {
  const toolret = client();
  await assert.rejects(toolret.select(defineCatalog("nowhere", registration()), ENGLISH), (error: unknown) => {
    assert.ok(error instanceof UnknownCatalogError);
    assert.deepEqual([error.status, error.error, error.field], [404, "unknown_catalog", "catalog"]);
    assert.match(error.detail, /register it/);
    return true;
  });
  await assert.rejects(client({ token: "not-a-token" }).select(crm(), ENGLISH), (error: unknown) => {
    assert.ok(error instanceof UnauthorizedError);
    assert.equal(error.error, "invalid_token");
    return true;
  });
  await assert.rejects(toolret.findTools("other-tenant", "anything"), (error: unknown) => {
    assert.ok(error instanceof ForbiddenError);
    assert.deepEqual([error.error, error.field], ["forbidden", "catalog"]);
    return true;
  });
  await assert.rejects(toolret.select(crm(), ENGLISH, { k: 0 }), (error: unknown) => {
    assert.ok(error instanceof InvalidRequestError);
    assert.deepEqual([error.status, error.error, error.field], [422, "invalid_request", "k"]);
    assert.equal(error.errors[0]?.field, "k");
    return true;
  });
  await assert.rejects(toolret.findTools(crm(), "anything", { limit: 9 }), (error: unknown) => {
    assert.ok(error instanceof InvalidRequestError);
    assert.equal(error.field, "limit");
    return true;
  });
  await assert.rejects(toolret.registerCatalog("crm-broken", { ...registration(), core: ["no_such_tool"] }), (error: unknown) => {
    assert.ok(error instanceof InvalidRequestError);
    assert.deepEqual([error.error, error.field], ["invalid_catalog", "core"]);
    return true;
  });
  assert.throws(() => defineCatalog("crm", { ...registration(), core: ["no_such_tool"] }), /core tool "no_such_tool"/);
  assert.equal(env("TOOLRET_URL").startsWith("http"), true);
});
