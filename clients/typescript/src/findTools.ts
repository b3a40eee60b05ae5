/**
 * find_tools: the model widens its own tool set when a plan needs more than it was sent.
 *
 * Bind `findToolsDefinition(shape)` with the selection. When the model calls it with a
 * capability phrase (any language), `answerFindTools` returns up to five matching tools not
 * already bound, as the JSON of the tool result. On the next step bind what
 * `discoveredToolNames(messages)` reads back from the transcript: discoveries are a pure function
 * of the current turn's messages, so they reset with every human message and are never stored.
 * The same definitions, answers and reading as toolret's Python helpers.
 */

import { CatalogError } from "./errors.js";
import type { Catalog, FoundTools } from "./types.js";
import { currentTurn, field, resultPayload, toolCalls, toolResults } from "./transcript.js";

export const FIND_TOOLS_NAME = "find_tools";

/**
 * Throw a `CatalogError` (field `tools`) when one of `names`, the user's tools, is
 * `FIND_TOOLS_NAME`: bound beside toolret's find_tools, the model would see two tools of one
 * name. `instead` is the integration's other fix. toolret's Python integrations refuse alike.
 */
export function checkFindToolsName(names: Iterable<string>, instead: string): void {
  for (const name of names) {
    if (name === FIND_TOOLS_NAME) {
      throw new CatalogError(
        `your tools include one named "${name}", the name of toolret's own tool search, which is bound beside them: rename yours, or ${instead}`,
        "tools",
      );
    }
  }
}
/** find_tools returns at most this many tools a capability. */
export const MAX_DISCOVERED_TOOLS = 5;
/** find_tools ranks at most this many capabilities a call. */
export const MAX_CAPABILITIES = 5;

/** Where the definition goes: Chat Completions, Responses, Anthropic, Gemini, or MCP. */
export type FindToolsShape = "openai" | "openai_responses" | "anthropic" | "gemini" | "mcp";

const DESCRIPTION =
  "Find more tools. The tools you have are a selection from a larger set; call this when you " +
  "need a capability none of them offers. Describe each capability in plain language, in any " +
  "language: what you want to do, not a tool name (for example 'link two records' or " +
  "'أضف حقلا إلى الكائن'). Ask for every capability your plan still needs in one call, up to " +
  "5; each gets up to 5 matching tools, callable from your next step.";

/** The arguments of find_tools, as JSON Schema (a fresh object each call). */
export function capabilitiesSchema() {
  return {
    type: "object" as const,
    properties: {
      capabilities: {
        type: "array" as const,
        items: { type: "string" as const },
        minItems: 1,
        maxItems: MAX_CAPABILITIES,
        description: "One short phrase per capability you need, in plain language (any language).",
      },
    },
    required: ["capabilities"],
    additionalProperties: false as const,
  };
}

type Schema = ReturnType<typeof capabilitiesSchema>;

/** The find_tools definition of each shape (a fresh object each call). */
export interface FindToolsDefinitions {
  openai: { type: "function"; function: { name: string; description: string; parameters: Schema } };
  openai_responses: { type: "function"; name: string; description: string; parameters: Schema; strict: null };
  anthropic: { name: string; description: string; input_schema: Schema };
  gemini: { name: string; description: string; parametersJsonSchema: Schema };
  mcp: { name: string; description: string; inputSchema: Schema };
}

/**
 * The find_tools definition to bind: `openai` (Chat Completions), `openai_responses`,
 * `anthropic`, `gemini` (a `FunctionDeclaration`, its schema as JSON Schema) or `mcp` (a
 * `tools/list` entry).
 */
export function findToolsDefinition<S extends FindToolsShape>(shape: S): FindToolsDefinitions[S];
export function findToolsDefinition(shape: FindToolsShape = "openai"): FindToolsDefinitions[FindToolsShape] {
  const fields = { name: FIND_TOOLS_NAME, description: DESCRIPTION };
  switch (shape) {
    case "openai":
      return { type: "function", function: { ...fields, parameters: capabilitiesSchema() } };
    case "openai_responses":
      return { type: "function", ...fields, parameters: capabilitiesSchema(), strict: null };
    case "anthropic":
      return { ...fields, input_schema: capabilitiesSchema() };
    case "gemini":
      return { ...fields, parametersJsonSchema: capabilitiesSchema() };
    case "mcp":
      return { ...fields, inputSchema: capabilitiesSchema() };
    default:
      throw new TypeError(
        `unknown shape ${JSON.stringify(shape)}; use openai, openai_responses, anthropic, gemini or mcp`,
      );
  }
}

/** What answers find_tools: a `ToolretClient`, or anything with its `findTools`. */
export interface ToolFinder {
  findTools(
    catalog: Catalog | string,
    capabilities: readonly string[],
    options?: { bound?: Iterable<string> | undefined; limit?: number | undefined },
  ): Promise<FoundTools>;
}

/**
 * What to tell the model when no search could run (a `reason` of `FoundTools` or of one
 * capability's result), or null when one did: a catalog still being indexed is "not available
 * yet", anything else "unavailable right now". Either way the model should go on with the tools
 * it has.
 */
export function unavailableMessage(found: { reason?: string | null | undefined }): string | null {
  if (found.reason === null || found.reason === undefined || found.reason === "blank_query") return null;
  if (found.reason === "not_indexed") {
    return "tool search is not available yet: the tools are still being indexed; continue with the tools you have";
  }
  return "tool search is unavailable right now; continue with the tools you have";
}

/**
 * The tool result for a find_tools call: `{"results": [{"capability", "tools": [{"name",
 * "description"}, ...]}, ...]}` as JSON text, one entry per capability asked, in order.
 *
 * `args` is the call's arguments (JSON text or an object): `{"capabilities": [...]}`, or one
 * `capability` string. The capabilities go to the service in one request, which ranks each and
 * deals the slots: at most `limit` (≤ 5) tools a capability, none already `bound`, none core,
 * none under two capabilities. A capability with none gets a `note`. Bad arguments, or no search
 * able to run, give a JSON `{"error": ...}` the model can read and act on; this never throws.
 */
export async function answerFindTools(
  finder: ToolFinder,
  catalog: Catalog | string,
  args: unknown,
  options: { bound?: Iterable<string> | undefined; limit?: number | undefined } = {},
): Promise<string> {
  const capabilities = capabilitiesOf(args);
  if (capabilities.length === 0) {
    return error('call find_tools with {"capabilities": ["<what you need, in plain language>", ...]}');
  }
  const asked = capabilities.slice(0, MAX_CAPABILITIES);
  const skip = new Set(options.bound ?? []);
  const limit = Math.max(1, Math.min(options.limit ?? MAX_DISCOVERED_TOOLS, MAX_DISCOVERED_TOOLS));
  let found: FoundTools;
  try {
    found = await finder.findTools(catalog, asked, { bound: skip, limit });
  } catch {
    found = { results: [], tools: [], reason: "internal_error" };
  }
  const core = new Set(typeof catalog === "string" ? [] : catalog.core);
  const known = typeof catalog === "string" ? null : new Set(catalog.names);
  const taken = new Set<string>();
  const results = asked.map((capability, i) => {
    const answered = found.results[i]?.capability === capability ? found.results[i] : undefined;
    const tools = (answered?.tools ?? [])
      .filter((t) => (known === null || known.has(t.name)) && !skip.has(t.name) && !core.has(t.name) && !taken.has(t.name))
      .slice(0, limit)
      .map((t) => ({ name: t.name, description: t.description }));
    for (const tool of tools) taken.add(tool.name);
    const entry: { capability: string; tools: typeof tools; note?: string } = { capability, tools };
    if (tools.length === 0) {
      entry.note = unavailableMessage(answered ?? found) ?? "no further tools match; rephrase the capability or use the tools you have";
    }
    return entry;
  });
  if (results.every((entry) => entry.tools.length === 0)) {
    const unavailable = [found, ...found.results].map(unavailableMessage).find((m) => m !== null);
    if (unavailable !== undefined && unavailable !== null) return error(unavailable);
  }
  const payload: { results: typeof results; note?: string } = { results };
  if (capabilities.length > asked.length) {
    payload.note = `only the first ${MAX_CAPABILITIES} capabilities were searched; ask again for the rest`;
  }
  return JSON.stringify(payload);
}

/**
 * The tools find_tools returned in the current turn, in order, without duplicates.
 *
 * The current turn starts after the last human message (a user message that is not only tool
 * results). A result answers a find_tools call by its id, or by name where the shape has no ids
 * (Gemini). Anything malformed is skipped; this never throws.
 */
export function discoveredToolNames(messages: Iterable<unknown>): string[] {
  const turn = currentTurn(messages);
  const finds = toolCalls(turn).filter((call) => call.name === FIND_TOOLS_NAME);
  const ids = new Set(finds.map((call) => call.id).filter((id): id is string => id !== null));
  const names = new Set<string>();
  for (const result of toolResults(turn)) {
    const byId = result.callId !== null && ids.has(result.callId);
    const byName = result.callId === null && result.name === FIND_TOOLS_NAME && finds.length > 0;
    if (byId || byName) for (const name of namesIn(resultPayload(result.content))) names.add(name);
  }
  return [...names];
}

/** The capabilities a find_tools call asks for, in order, blank ones and repeats dropped. */
export function capabilitiesOf(args: unknown): string[] {
  let value = args;
  if (typeof value === "string") {
    try {
      value = value.trim() ? JSON.parse(value) : {};
    } catch {
      return [];
    }
  }
  let given = field(value, "capabilities");
  if (given === undefined || given === null) given = field(value, "capability") ?? field(value, "query");
  const items = typeof given === "string" ? [given] : Array.isArray(given) ? given : [];
  const phrases = items.filter((item): item is string => typeof item === "string").map((item) => item.trim());
  return [...new Set(phrases.filter((phrase) => phrase.length > 0))];
}

function error(message: string): string {
  return JSON.stringify({ error: message, results: [] });
}

function namesIn(payload: unknown): string[] {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return [];
  const results = field(payload, "results");
  const lists = Array.isArray(results) ? results.map((result) => field(result, "tools")) : [];
  lists.push(field(payload, "tools"));
  return lists
    .filter((tools): tools is unknown[] => Array.isArray(tools))
    .flatMap((tools) => tools.map((tool) => field(tool, "name")))
    .filter((name): name is string => typeof name === "string" && name.length > 0);
}
