/**
 * What every provider's agent loop shares: one selection per turn, each round's tools, and the
 * answer to each tool call (find_tools by toolret, the rest by your `runTool`, a failing tool
 * answered with its error so no call is left without a result).
 */

import type { ToolretClient, SelectOptions } from "./client.js";
import { type FindToolsDefinitions, type FindToolsShape, FIND_TOOLS_NAME, answerFindTools, findToolsDefinition } from "./findTools.js";
import { latestHumanText } from "./transcript.js";
import { unreachable, unsearchable } from "./turnSelector.js";
import type { Catalog, Selection } from "./types.js";

/**
 * Runs one of your tools: its result as text (Anthropic also takes content blocks; anything
 * that is not text goes to OpenAI as JSON).
 */
export type RunTool = (name: string, input: unknown, id: string) => Promise<unknown> | unknown;

/** What a turn of every loop takes besides the provider's own parts. */
export interface TurnOptions<T, M> {
  /**
   * The toolret client (or anything with its `select` and `findTools`; with its
   * `findToolsDefinition` too, find_tools is bound as the service describes it for the catalog).
   */
  toolret: Pick<ToolretClient, "select" | "findTools"> & Partial<Pick<ToolretClient, "findToolsDefinition">>;
  catalog: Catalog;
  /** Every tool of the catalog, in the provider's shape: each round sends the ones it binds. */
  tools: readonly T[];
  /** The conversation, ending with the user's message; the turn appends to it. */
  messages: M[];
  /** Runs a tool the model called; a throw is answered to the model as that tool's error. */
  runTool: RunTool;
  /** The turn's selection, when you made it; else it is made for the latest user message. */
  selection?: Selection | undefined;
  /** `select`'s options (`bound` for a cache-stable list, `k`). */
  select?: SelectOptions | undefined;
  /** The most model calls in this turn (16): the turn returns after the last one's calls are answered. */
  maxRounds?: number | undefined;
}

/** A finished turn: the model's last reply, the turn's selection, and how many calls it took. */
export interface TurnResult<R> {
  reply: R;
  selection: Selection;
  rounds: number;
}

export const DEFAULT_MAX_ROUNDS = 16;

/** The turn's selection: the one given, else one made for the latest human message. */
export async function turnSelection<T, M>(options: TurnOptions<T, M>): Promise<Selection> {
  if (options.selection !== undefined) return options.selection;
  return options.toolret.select(options.catalog, latestHumanText(options.messages), options.select);
}

/** The turn's find_tools definition: the service's for the catalog, else the plain one. */
export async function turnDefinition<T, M, S extends FindToolsShape>(
  options: TurnOptions<T, M>,
  shape: S,
): Promise<FindToolsDefinitions[S]> {
  if (options.toolret.findToolsDefinition === undefined) return findToolsDefinition(shape);
  return options.toolret.findToolsDefinition(options.catalog, shape);
}

/**
 * The turn's selection and find_tools definition, asked of the service at once (a service that
 * does not answer costs the turn one wait, not two).
 */
export function turnStart<T, M, S extends FindToolsShape>(
  options: TurnOptions<T, M>,
  shape: S,
): Promise<[Selection, FindToolsDefinitions[S]]> {
  return Promise.all([turnSelection(options), turnDefinition(options, shape)]);
}

/**
 * The answer to one call, as text: find_tools answered by toolret (at once, that search is
 * unavailable, when the turn's `selection` could not reach the service), the others by `runTool`.
 */
export async function answerCall<T, M>(
  options: TurnOptions<T, M>,
  call: { name: string; input: unknown; id: string },
  bound: readonly string[],
  selection?: Pick<Selection, "mode" | "reason">,
): Promise<{ content: unknown; isError: boolean }> {
  if (call.name === FIND_TOOLS_NAME) {
    const reason = selection === undefined ? undefined : unreachable(selection);
    const finder = reason === undefined ? options.toolret : unsearchable(reason);
    const content = await answerFindTools(finder, options.catalog, call.input, { bound });
    return { content, isError: false };
  }
  try {
    return { content: await options.runTool(call.name, call.input, call.id), isError: false };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { content: `${call.name} failed: ${message}`, isError: true };
  }
}

/** The arguments of a call sent as JSON text, parsed (the text itself when it is not JSON). */
export function parsedArguments(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
