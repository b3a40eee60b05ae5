/**
 * A provider tools array narrowed to what a selection names, and what one round of a turn binds.
 */

import { type FindToolsShape, discoveredToolNames, findToolsDefinition, type FindToolsDefinitions } from "./findTools.js";
import { field } from "./transcript.js";
import type { Selection } from "./types.js";

/**
 * A tool definition's name: `function.name` (OpenAI Chat Completions) or `name` (OpenAI
 * Responses, Anthropic, Gemini, MCP); undefined when it has neither.
 */
export function toolName(tool: unknown): string | undefined {
  const name = field(field(tool, "function"), "name") ?? field(tool, "name");
  return typeof name === "string" ? name : undefined;
}

/**
 * The entries of `tools` that `names` name, in the order of `names` and once each: your
 * provider tools array (OpenAI, Anthropic, Gemini or MCP shape), or a record of tools keyed by
 * name (the AI SDK's `ToolSet`), narrowed to a record of the same type. A selection's names
 * come in catalog order, or extend the conversation's list (`bound`), and what find_tools
 * discovered follows, so each round's tools extend the last one's as a prefix. Names with no
 * entry are skipped.
 */
export function toolsNamed<T>(tools: readonly T[], names: Iterable<string>): T[];
export function toolsNamed<R extends Record<string, unknown>>(tools: R, names: Iterable<string>): Partial<R>;
export function toolsNamed(tools: object, names: Iterable<string>): unknown {
  if (!Array.isArray(tools)) {
    const record = tools as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const name of names) if (Object.hasOwn(record, name) && !Object.hasOwn(out, name)) out[name] = record[name];
    return out;
  }
  const byName = new Map<string, unknown>();
  for (const tool of tools as unknown[]) {
    const name = toolName(tool);
    if (name !== undefined && !byName.has(name)) byName.set(name, tool);
  }
  const out: unknown[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    const tool = byName.get(name);
    if (tool !== undefined && !seen.has(name)) {
      seen.add(name);
      out.push(tool);
    }
  }
  return out;
}

/**
 * The keys of `tools` (the AI SDK's `ToolSet`, or any record of tools) that `names` name, in
 * the order of `names`, typed as the record's key union: what `activeTools` and `toolOrder`
 * take, without a cast (`activeTools: toolNames(tools, selection.names)`).
 */
export function toolNames<R extends object>(tools: R, names: Iterable<string>): (keyof R & string)[] {
  const isKey = (name: string): name is keyof R & string => Object.hasOwn(tools, name);
  return [...new Set(names)].filter(isKey);
}

/**
 * What one round of a turn binds: the turn's selection plus what find_tools found in this turn
 * (read from `messages`), then the find_tools definition (`definition`, the service's for the
 * catalog; else `findToolsDefinition(shape)`). `bound` is what to pass to `answerFindTools`, so
 * a search never returns a tool the model already has.
 */
export function roundTools<T, S extends FindToolsShape>(
  tools: readonly T[],
  selection: Pick<Selection, "names">,
  messages: Iterable<unknown>,
  shape: S,
  definition: FindToolsDefinitions[S] = findToolsDefinition(shape),
): { bound: string[]; tools: (T | FindToolsDefinitions[S])[] } {
  const bound = [...new Set([...selection.names, ...discoveredToolNames(messages)])];
  return { bound, tools: [...toolsNamed(tools, bound), definition] };
}
