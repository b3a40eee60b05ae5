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

import type { Catalog, FoundTools } from "./types.js";
import { currentTurn, field, resultPayload, toolCalls, toolResults } from "./transcript.js";

export const FIND_TOOLS_NAME = "find_tools";
/** find_tools returns at most this many tools. */
export const MAX_DISCOVERED_TOOLS = 5;

/** Where the definition goes: Chat Completions, Responses, Anthropic, Gemini, or MCP. */
export type FindToolsShape = "openai" | "openai_responses" | "anthropic" | "gemini" | "mcp";

const DESCRIPTION =
  "Find more tools. The tools you have are a selection from a larger set; call this when you " +
  "need a capability none of them offers. Describe the capability in plain language, in any " +
  "language: what you want to do, not a tool name (for example 'link two records' or " +
  "'أضف حقلا إلى الكائن'). Up to 5 matching tools are returned, and they become callable from " +
  "your next step.";

function schema() {
  return {
    type: "object" as const,
    properties: {
      capability: {
        type: "string" as const,
        description: "The capability you need, in plain language (any language).",
      },
    },
    required: ["capability"],
    additionalProperties: false as const,
  };
}

type Schema = ReturnType<typeof schema>;

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
      return { type: "function", function: { ...fields, parameters: schema() } };
    case "openai_responses":
      return { type: "function", ...fields, parameters: schema(), strict: null };
    case "anthropic":
      return { ...fields, input_schema: schema() };
    case "gemini":
      return { ...fields, parametersJsonSchema: schema() };
    case "mcp":
      return { ...fields, inputSchema: schema() };
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
    capability: string,
    options?: { bound?: Iterable<string>; limit?: number },
  ): Promise<FoundTools>;
}

/**
 * What to tell the model when no search could run (`FoundTools.reason`), or null when one did:
 * a catalog still being indexed is "not available yet", anything else "unavailable right now".
 * Either way the model should go on with the tools it has.
 */
export function unavailableMessage(found: FoundTools): string | null {
  if (found.reason === null || found.reason === undefined || found.reason === "blank_query") return null;
  if (found.reason === "not_indexed") {
    return "tool search is not available yet: the tools are still being indexed; continue with the tools you have";
  }
  return "tool search is unavailable right now; continue with the tools you have";
}

/**
 * The tool result for a find_tools call: `{"tools": [{"name", "description"}, ...]}` as JSON
 * text.
 *
 * `args` is the call's arguments (JSON text or an object). At most `limit` (≤ 5) tools, none
 * already `bound`, none core (when `catalog` says which are). Bad arguments or a failing search
 * give a JSON `{"error": ...}` the model can read and act on; this never throws.
 */
export async function answerFindTools(
  finder: ToolFinder,
  catalog: Catalog | string,
  args: unknown,
  options: { bound?: Iterable<string>; limit?: number } = {},
): Promise<string> {
  const capability = capabilityOf(args);
  if (capability === null) {
    return error('call find_tools with {"capability": "<what you need, in plain language>"}');
  }
  const skip = new Set(options.bound ?? []);
  const limit = Math.max(0, Math.min(options.limit ?? MAX_DISCOVERED_TOOLS, MAX_DISCOVERED_TOOLS));
  let found: FoundTools;
  try {
    found = await finder.findTools(catalog, capability, { bound: skip, limit });
  } catch {
    found = { tools: [], reason: "internal_error" };
  }
  const unavailable = unavailableMessage(found);
  if (unavailable !== null) return error(unavailable);
  const core = new Set(typeof catalog === "string" ? [] : catalog.core);
  const known = typeof catalog === "string" ? null : new Set(catalog.names);
  const tools = found.tools
    .filter((t) => (known === null || known.has(t.name)) && !skip.has(t.name) && !core.has(t.name))
    .slice(0, limit)
    .map((t) => ({ name: t.name, description: t.description }));
  const payload: { tools: typeof tools; note?: string } = { tools };
  if (tools.length === 0) {
    payload.note = "no further tools match; rephrase the capability or use the tools you have";
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

function capabilityOf(args: unknown): string | null {
  let value = args;
  if (typeof value === "string") {
    try {
      value = value.trim() ? JSON.parse(value) : {};
    } catch {
      return null;
    }
  }
  const capability = field(value, "capability");
  return typeof capability === "string" && capability.trim() ? capability.trim() : null;
}

function error(message: string): string {
  return JSON.stringify({ error: message, tools: [] });
}

function namesIn(payload: unknown): string[] {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) return [];
  const tools = field(payload, "tools");
  if (!Array.isArray(tools)) return [];
  return tools
    .map((tool) => field(tool, "name"))
    .filter((name): name is string => typeof name === "string" && name.length > 0);
}
