/**
 * What a framework's hook before each model call needs from toolret: the catalog names to bind
 * for this call, and the answer to a find_tools call. The AI SDK and LangChain integrations
 * (`@toolret/client/ai-sdk`, `@toolret/client/langchain`) are this plus their framework's
 * types; a hand-built graph (a LangGraph `StateGraph` node) can use it as it is.
 *
 * - One selection per turn: the turn's latest human message is selected for once, and every
 *   model call of the turn reuses it (the last 64 messages' selections are kept). A selection
 *   that fell open is kept too, for the turn (`KEPT_FALL_OPEN_MS`): a turn waits for a service
 *   that is down at most once.
 * - find_tools answers from that selection without selecting again; when it fell open because
 *   the service could not be asked (`timeout`, `service_unreachable`, `service_error`) or
 *   refused, find_tools answers at once that search is unavailable.
 * - What the caller got wrong (the service refuses: an unknown catalog, a bad token, an invalid
 *   option) still lets the turn finish with every tool, but is never silent: logged once per
 *   cause with `console.error`, naming the fix, and handed to `onError` on every turn it meets.
 * - find_tools' discoveries are read back from the messages (`discoveredToolNames`), so they
 *   are forgotten with the next human message and nothing is stored.
 * - A cache-stable list (`held`, kept with the conversation) only grows: core first, then
 *   first-seen order, so each call's tools extend the last call's as a prefix.
 */

import { fullRoster, type ToolretClient } from "./client.js";
import { ToolretApiError, type ToolretError } from "./errors.js";
import { type ToolFinder, answerFindTools, discoveredToolNames, findToolsDefinition } from "./findTools.js";
import { latestHumanText } from "./transcript.js";
import type { Catalog, ClientReason, FoundTools, Selection } from "./types.js";

/** How many messages' selections a `TurnSelector` keeps. */
export const KEPT_SELECTIONS = 64;
/**
 * How long a selection that fell open is kept (ms): the model calls of one turn follow each other
 * within seconds; the same words in a later turn are selected afresh.
 */
export const KEPT_FALL_OPEN_MS = 60_000;

/** The reasons this client gives when the service could not be asked: a search would fail too. */
const UNREACHABLE: ReadonlySet<string> = new Set<ClientReason>(["timeout", "service_unreachable", "service_error"]);

/**
 * Why a search is not worth asking in a turn whose selection is `selection`: the service could
 * not be asked for it (`timeout`, `service_unreachable`, `service_error`), so a search would wait
 * as long and fail the same; undefined otherwise.
 */
export function unreachable(selection: Pick<Selection, "mode" | "reason">): string | undefined {
  const reason = selection.reason ?? "";
  return selection.mode === "full" && UNREACHABLE.has(reason) ? reason : undefined;
}

/** A finder that answers at once that no search could run, because of `reason`. */
export function unsearchable(reason: string): ToolFinder {
  return { findTools: async () => ({ results: [], tools: [], reason }) };
}

/** What a `TurnSelector` takes. */
export interface TurnSelectorOptions {
  /** The toolret client (or anything with its `select` and `findTools`). */
  toolret: Pick<ToolretClient, "select" | "findTools"> & Partial<Pick<ToolretClient, "findToolsDefinition">>;
  /** The catalog of the agent's tools (find_tools left out). */
  catalog: Catalog;
  /** Non-core tools to bind (the service's default: 12). */
  k?: number | undefined;
  /**
   * Called with what the caller got wrong (a `ToolretApiError`: `UnknownCatalogError`,
   * `UnauthorizedError`, `ForbiddenError`, `InvalidRequestError`) each turn it is met; the turn
   * goes on with every tool. An outage is not an error of the caller: it never comes here.
   */
  onError?: ((error: ToolretError) => void) | undefined;
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

interface Kept {
  selection: Promise<Selection>;
  /** When a fallen-open selection stops answering (ms since the epoch); never for a narrowed one. */
  until: number;
  /** Why find_tools is answered at once this turn (the service could not be asked, or refused). */
  unsearchable?: string;
}

/** The names to bind before each model call of a turn, and find_tools' answers. */
export class TurnSelector {
  readonly toolret: TurnSelectorOptions["toolret"];
  readonly catalog: Catalog;
  readonly k: number | undefined;
  readonly onError: TurnSelectorOptions["onError"];
  readonly #selections = new Map<string, Kept>();
  readonly #logged = new Set<string>();

  constructor(options: TurnSelectorOptions) {
    this.toolret = options.toolret;
    this.catalog = options.catalog;
    this.k = options.k;
    this.onError = options.onError;
  }

  /**
   * The selection for the latest human message of `messages`: asked once per message and
   * reused by every call of its turn, a fallen-open one too. Never throws: an outage gives the
   * full roster; a refusal of the service (an unknown catalog, a bad token) gives the full
   * roster with the refusal's code as its reason, logged once and handed to `onError`.
   */
  selection(messages: Iterable<unknown>): Promise<Selection> {
    return this.#kept(latestHumanText(messages)).selection;
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
   * nothing already bound comes back. It reuses the turn's selection (it never selects again),
   * and answers at once that search is unavailable when that selection could not reach the
   * service or was refused. Never throws.
   */
  async answer(args: unknown, messages: readonly unknown[], held?: readonly string[]): Promise<string> {
    const kept = this.#kept(latestHumanText(messages));
    const { names } = await this.bound(messages, held);
    const reason = kept.unsearchable;
    const finder: ToolFinder = reason === undefined ? { findTools: (...asked) => this.#search(...asked) } : unsearchable(reason);
    return answerFindTools(finder, this.catalog, args, { bound: names });
  }

  /** find_tools' description for this catalog, as the service makes it (else the plain one). */
  async description(): Promise<string> {
    const definition =
      this.toolret.findToolsDefinition === undefined
        ? findToolsDefinition("mcp")
        : await this.toolret.findToolsDefinition(this.catalog, "mcp");
    return definition.description;
  }

  /** The kept selection of `text`, asked for when there is none (or it has expired). */
  #kept(text: string): Kept {
    const kept = this.#selections.get(text);
    if (kept !== undefined && kept.until > Date.now()) {
      this.#selections.delete(text); // most recently used last
      this.#selections.set(text, kept);
      return kept;
    }
    const entry: Kept = { selection: Promise.resolve(fullRoster(this.catalog, undefined, "internal_error")), until: Infinity };
    entry.selection = this.#select(text).then(([selection, unsearchable]) => {
      if (selection.mode === "full") entry.until = Date.now() + KEPT_FALL_OPEN_MS;
      if (unsearchable !== undefined) entry.unsearchable = unsearchable;
      return selection;
    });
    this.#selections.delete(text);
    this.#selections.set(text, entry);
    if (this.#selections.size > KEPT_SELECTIONS) {
      const oldest = this.#selections.keys().next().value;
      if (oldest !== undefined) this.#selections.delete(oldest);
    }
    return entry;
  }

  /** The selection of `text`, and why a search is pointless this turn (if it is). */
  async #select(text: string): Promise<[Selection, string | undefined]> {
    try {
      const selection = await this.toolret.select(this.catalog, text, this.k === undefined ? {} : { k: this.k });
      return [selection, unreachable(selection)];
    } catch (error) {
      const reason = this.#refused(error) ?? "internal_error";
      return [fullRoster(this.catalog, undefined, reason), reason];
    }
  }

  /** find_tools through the service; a refusal is reported as `select`'s is. */
  async #search(...asked: Parameters<ToolFinder["findTools"]>): Promise<FoundTools> {
    try {
      return await this.toolret.findTools(...asked);
    } catch (error) {
      return { results: [], tools: [], reason: this.#refused(error) ?? "internal_error" };
    }
  }

  /**
   * A refusal of the service (the caller's mistake): logged once per cause, handed to
   * `onError`; its code. Anything else thrown (not this client's doing): logged once, undefined.
   */
  #refused(error: unknown): string | undefined {
    const refused = error instanceof ToolretApiError;
    const cause = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    if (!this.#logged.has(cause)) {
      this.#logged.add(cause);
      const what = refused ? "the service refused this catalog's request" : "selecting failed";
      console.error(`toolret: sending every tool of ${JSON.stringify(this.catalog.name)}: ${what}: ${cause}${fixFor(error)}`);
    }
    if (!refused) return undefined;
    try {
      this.onError?.(error);
    } catch (failure) {
      console.error(`toolret: onError threw: ${String(failure)}`);
    }
    return error.error;
  }
}

/** What to do about a refusal, as a sentence to append. */
function fixFor(error: unknown): string {
  if (!(error instanceof ToolretApiError)) return "";
  switch (error.status) {
    case 401:
      return " (pass a token the service knows: new ToolretClient({ url, token }), one of its TOOLRET_SERVE_TOKENS)";
    case 403:
      return " (this token may not use that catalog: give it the catalog in TOOLRET_SERVE_TOKENS, or use one that may)";
    case 404:
      if (error.error === "unknown_catalog") return " (register it first: await toolret.registerCatalog(catalog), on deploy)";
      break;
  }
  switch (error.status) {
    default:
      return error.field === null ? "" : ` (the field at fault: ${error.field})`;
  }
}
