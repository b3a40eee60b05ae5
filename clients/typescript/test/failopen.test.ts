// The client when the service is stopped (TOOLRET_FAILURE=stopped) or answers slowly (slow):
// every tool of the catalog, the reason, and nothing thrown.
import assert from "node:assert/strict";
import { test } from "node:test";

import { answerFindTools } from "../src/index.js";
import { client, crm, env } from "./env.js";

const failure = env("TOOLRET_FAILURE");
const reason = failure === "stopped" ? "service_unreachable" : "timeout";
const toolret = client({ timeoutMs: failure === "slow" ? 300 : 60_000 });

test(`select falls open to every tool when the service is ${failure}`, async () => {
  for (const message of ["Delete the duplicate contact for Acme Corp", "احذف جهة الاتصال المكررة"]) {
    const selection = await toolret.select(crm(), message);
    assert.deepEqual(selection, { names: [...crm().names], mode: "full", reason, schema_tokens: null, roster_tokens: null, unranked: [] });
  }
});

test(`a cache-stable list falls open as the list so far, then every other tool (${failure})`, async () => {
  const bound = [...crm().core, "delete_record", "export_records"];
  const selection = await toolret.select(crm(), "and now archive it", { bound: ["export_records", ...bound] });
  assert.deepEqual(selection.names.slice(0, 5), [...crm().core, "export_records", "delete_record"]);
  assert.deepEqual([...selection.names].sort(), [...crm().names].sort());
});

test(`find_tools says search is unavailable, and feedback is not queued (${failure})`, async () => {
  assert.deepEqual(await toolret.findTools(crm(), "delete a record"), {
    results: [{ capability: "delete a record", tools: [], reason }],
    tools: [],
    reason,
  });
  const answer = JSON.parse(await answerFindTools(toolret, crm(), { capabilities: ["delete a record"] }));
  assert.deepEqual(answer, { error: "tool search is unavailable right now; continue with the tools you have", results: [] });
  if (failure === "stopped") {
    const selection = { names: ["find_records"], mode: "narrowed" as const };
    assert.deepEqual(await toolret.feedback(crm(), selection, ["find_records"]), { queued: false, reason });
  }
});
