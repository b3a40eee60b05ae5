/**
 * What a framework's hook before each model call needs from toolret: the catalog names to bind
 * for this call, and the answer to a find_tools call. The AI SDK and LangChain integrations
 * (`@toolret/client/ai-sdk`, `@toolret/client/langchain`) are this plus their framework's
 * types; a hand-built graph (a LangGraph `StateGraph` node) can use it as it is.
 *
 * - One selection per turn: the turn's latest human message is selected for once, and every
 *   model call of the turn reuses it (the last 64 messages' selections are kept; a fall-open
 *   is not, so the next call tries again).
 * - find_tools' discoveries are read back from the messages (`discoveredToolNames`), so they
 *   are forgotten with the next human message and nothing is stored.
 * - A cache-stable list (`held`, kept with the conversation) only grows: core first, then
 *   first-seen order, so each call's tools extend the last call's as a prefix.
 */

import type { ToolretClient } from "./client.js";
import { answerFindTools, discoveredToolNames, findToolsDefinition } from "./findTools.js";
import { latestHumanText } from "./transcript.js";
import type { Catalog, Selection } from "./types.js";

/** How many messages' selections a `TurnSelector` keeps. */
export const KEPT_SELECTIONS = 64;

/** What a `TurnSelector` takes. */
export interface TurnSelectorOptions {
  /** The toolret client (or anything with its `select` and `findTools`). */
  toolret: Pick<ToolretClient, "select" | "findTools"> & Partial<Pick<ToolretClient, "findToolsDefinition">>;
  /** The catalog of the agent's tools (find_tools left out). */
  catalog: Catalog;
  /** Non-core tools to bind (the service's default: 12). */
  k?: number | undefined;
}

/** The catalog names one model call binds, and what to keep when the list is cache-stable. */
export interface BoundNames {
  /** The names to bind, in the order to send them. */
  names: string[];
  /** The conversation's cache-stable list after this call (with `held`); else `names`. */
  held: string[];
  /** The turn's selection. */
  selection: Selection;
}

/** The names to bind before each model call of a turn, and find_tools' answers. */
export class TurnSelector {
  readonly toolret: TurnSelectorOptions["toolret"];
  readonly catalog: Catalog;
  readonly k: number | undefined;
  readonly #selections = new Map<string, Promise<Selection>>();

  constructor(options: TurnSelectorOptions) {
    this.toolret = options.toolret;
    this.catalog = options.catalog;
    this.k = options.k;
  }

  /**
   * The selection for the latest human message of `messages`: asked once per message and
   * reused by every call of its turn. Never throws for an outage (the full roster); a refusal
   * of the service (an unknown catalog, a bad token) is thrown.
   */
  selection(messages: Iterable<unknown>): Promise<Selection> {
    const text = latestHumanText(messages);
    const kept = this.#selections.get(text);
    if (kept !== undefined) {
      this.#selections.delete(text); // most recently used last
      this.#selections.set(text, kept);
      return kept;
    }
    const asked = this.toolret.select(this.catalog, text, this.k === undefined ? {} : { k: this.k }).then(
      (selection) => {
        if (selection.mode === "full" && selection.reason !== "blank_message") this.#forget(text, asked);
        return selection;
      },
      (error: unknown) => {
        this.#forget(text, asked);
        throw error;
      },
    );
    this.#selections.set(text, asked);
    if (this.#selections.size > KEPT_SELECTIONS) {
      const oldest = this.#selections.keys().next().value;
      if (oldest !== undefined) this.#selections.delete(oldest);
    }
    return asked;
  }

  /**
   * The catalog names to bind for the next model call: the turn's selection, then what
   * find_tools found in this turn. With `held` (the conversation's cache-stable list, `[]` at
   * its start), that list grown by both, core first; a full roster sends the list and then
   * every other tool without keeping them.
   */
  async bound(messages: readonly unknown[], held?: readonly string[]): Promise<BoundNames> {
    const selection = await this.selection(messages);
    const known = new Set(this.catalog.names);
    const discovered = discoveredToolNames(messages).filter((name) => known.has(name));
    if (held === undefined) {
      const names = [...new Set([...selection.names, ...discovered])];
      return { names, held: names, selection };
    }
    const list = new Set([...this.catalog.core, ...held.filter((name) => known.has(name))]);
    if (selection.mode === "full") {
      for (const name of discovered) list.add(name);
      const kept = [...list];
      return { names: [...kept, ...this.catalog.names.filter((name) => !list.has(name))], held: kept, selection };
    }
    for (const name of [...selection.names, ...discovered]) if (known.has(name)) list.add(name);
    return { names: [...list], held: [...list], selection };
  }

  /**
   * The tool result of a find_tools call with `args`, made while `messages` is the turn so far:
   * nothing already bound comes back. Never throws.
   */
  async answer(args: unknown, messages: readonly unknown[], held?: readonly string[]): Promise<string> {
    let bound: string[] = [];
    try {
      bound = (await this.bound(messages, held)).names;
    } catch {
      // the selection was refused: search anyway, among everything
    }
    return answerFindTools(this.toolret, this.catalog, args, { bound });
  }

  /** find_tools' description for this catalog, as the service makes it (else the plain one). */
  async description(): Promise<string> {
    const definition =
      this.toolret.findToolsDefinition === undefined
        ? findToolsDefinition("mcp")
        : await this.toolret.findToolsDefinition(this.catalog, "mcp");
    return definition.description;
  }

  #forget(text: string, asked: Promise<Selection>): void {
    if (this.#selections.get(text) === asked) this.#selections.delete(text);
  }
}
