/**
 * `ToolretClient`: toolret serve over `fetch`, with the Python client's contracts.
 *
 * - `select` never throws for an outage: a timeout (`timeoutMs`, reading the body included), a
 *   network error, a 5xx (or 408, 429), or an answer that is not the API's gives
 *   `{ mode: "full", reason }` with every tool of the catalog passed in (with `bound`, the list
 *   so far first, then the rest, as a cache-stable list falls open).
 * - `findTools` and `feedback` fall open the same way: no tools (or not queued) and the reason.
 * - What the caller got wrong is thrown as a typed `ToolretApiError` carrying the service's
 *   `error`, `detail` and `field`; `registerCatalog` throws `ServiceUnavailableError` when the
 *   service cannot take the catalog, since a deploy step should fail loudly.
 */

import { ConfigurationError, ServiceUnavailableError, ToolretApiError, apiError } from "./errors.js";
import { type FindToolsDefinitions, type FindToolsShape, FIND_TOOLS_NAME, findToolsDefinition } from "./findTools.js";
import { field, latestHumanText } from "./transcript.js";
import type {
  Catalog,
  CatalogRegistration,
  ClientReason,
  ErrorBody,
  FeedbackRequest,
  FeedbackResponse,
  FindToolsRequest,
  FoundTools,
  Registration,
  SelectRequest,
  Selection,
} from "./types.js";

/**
 * How to reach toolret serve. Checked when the client is built: a value of the wrong kind
 * throws a `ConfigurationError` naming the option. An option given as `undefined` is unset.
 */
export interface ToolretClientOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /** A bearer token of `TOOLRET_SERVE_TOKENS` (none when the service has no tokens). */
  token?: string | undefined;
  /** The longest a select, find_tools or feedback call waits before it falls open (3000 ms). */
  timeoutMs?: number | undefined;
  /** The longest a registration waits: it may index the catalog inline (120000 ms). */
  registerTimeoutMs?: number | undefined;
  /** The `fetch` to use (the global one by default). */
  fetch?: typeof globalThis.fetch | undefined;
}

/** `select`'s options. */
export interface SelectOptions {
  /**
   * Keep the conversation's tool list cache-stable: `[]` on its first turn, then the names the
   * previous selection returned; the answer extends that list.
   */
  bound?: readonly string[] | null | undefined;
  /** Non-core tools to bind (the service's default is 12). */
  k?: number | undefined;
  /** A resumed turn: the full roster, nothing ranked. */
  resume?: boolean | undefined;
  /**
   * Rank only among these tools (names, or prefix patterns such as `github__*`), core tools
   * included; it narrows the token's own list, never widens it.
   */
  allowed?: readonly string[] | undefined;
}

/** `findTools`'s options. */
export interface FindToolsOptions {
  /** Names the model can already call: never returned. */
  bound?: Iterable<string> | undefined;
  /** Search only among these tools (names, or prefix patterns such as `github__*`). */
  allowed?: readonly string[] | undefined;
  /** At most this many tools (at most 5). */
  limit?: number | undefined;
}

/** `feedback`'s options. */
export interface FeedbackOptions {
  /** The message the selection was made for (by default the transcript's latest human message). */
  message?: string | undefined;
  /** Let the worker learn from the misses. */
  learn?: boolean | undefined;
}

export const DEFAULT_TIMEOUT_MS = 3000;
export const DEFAULT_REGISTER_TIMEOUT_MS = 120_000;

type Outcome<T> = { ok: true; body: T } | { ok: false; reason: ClientReason; status: number | null; cause: unknown };

/** A client of one toolret serve (or a load balancer in front of several). */
export class ToolretClient {
  readonly url: string;
  readonly timeoutMs: number;
  readonly registerTimeoutMs: number;
  readonly #headers: Record<string, string>;
  readonly #fetch: typeof globalThis.fetch;
  readonly #definitions = new WeakMap<Catalog, Map<FindToolsShape, object>>();

  constructor(options: ToolretClientOptions) {
    const given: Partial<Record<keyof ToolretClientOptions, unknown>> = options ?? {};
    const url = given.url;
    if (typeof url !== "string" || !/^https?:\/\/./.test(url)) {
      throw invalid("url", url, "the service's http(s) address, e.g. http://127.0.0.1:8080");
    }
    if (given.token !== undefined && (typeof given.token !== "string" || given.token === "")) {
      throw invalid("token", given.token, "a bearer token (a non-empty string), or leave it out");
    }
    if (given.fetch !== undefined && typeof given.fetch !== "function") {
      throw invalid("fetch", given.fetch, "a fetch function, or leave it out for the global one");
    }
    this.url = url.replace(/\/+$/, "");
    this.timeoutMs = milliseconds("timeoutMs", given.timeoutMs, DEFAULT_TIMEOUT_MS);
    this.registerTimeoutMs = milliseconds("registerTimeoutMs", given.registerTimeoutMs, DEFAULT_REGISTER_TIMEOUT_MS);
    this.#headers = { "Content-Type": "application/json" };
    if (typeof given.token === "string") this.#headers.Authorization = `Bearer ${given.token}`;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /**
   * The tools to send the model with `message`: core plus the best `k`, in catalog order (or
   * extending `bound`). Never throws for an outage; a 4xx (an unknown catalog, a bad token, a
   * bad field) is thrown as a `ToolretApiError`.
   */
  async select(catalog: Catalog, message: string, options: SelectOptions = {}): Promise<Selection> {
    const body: SelectRequest = { catalog: nameOf(catalog), message };
    if (options.resume) body.resume = true;
    if (options.k !== undefined) body.k = options.k;
    if (options.bound !== undefined && options.bound !== null) body.bound = [...options.bound];
    if (options.allowed !== undefined) body.allowed = [...options.allowed];
    let outcome: Outcome<unknown>;
    try {
      outcome = await this.#post("/v1/select", body, this.timeoutMs);
    } catch (error) {
      if (error instanceof ToolretApiError) throw error;
      outcome = { ok: false, reason: "service_error", status: null, cause: error };
    }
    if (outcome.ok && isSelection(outcome.body)) return { ...outcome.body, unranked: outcome.body.unranked ?? [] };
    return fullRoster(catalog, options.bound, outcome.ok ? "service_error" : outcome.reason, options.allowed);
  }

  /**
   * Up to `limit` (≤ 5) tools for each capability phrase (one, or up to 5 in one call), in any
   * language, best first, none already `bound`, none core and none listed under two
   * capabilities: `results` holds each capability's tools, `tools` all of them. When no search
   * could run, no tools and the `reason` (`not_indexed`, `timeout`, ...).
   */
  async findTools(
    catalog: Catalog | string,
    capabilities: string | readonly string[],
    options: FindToolsOptions = {},
  ): Promise<FoundTools> {
    const asked = typeof capabilities === "string" ? [capabilities] : [...capabilities];
    const body: FindToolsRequest = { catalog: nameOf(catalog), capabilities: asked };
    if (options.bound !== undefined) body.bound = [...options.bound];
    if (options.limit !== undefined) body.limit = options.limit;
    if (options.allowed !== undefined) body.allowed = [...options.allowed];
    const outcome = await this.#post("/v1/find_tools", body, this.timeoutMs);
    if (outcome.ok && isFound(outcome.body)) return outcome.body;
    const reason = outcome.ok ? "service_error" : outcome.reason;
    return { results: asked.map((capability) => ({ capability, tools: [], reason })), tools: [], reason };
  }

  /**
   * The find_tools definition to bind for `catalog`, in a provider's shape, as the service
   * makes it: its description names what lies behind it ("Behind it: 44 tools from ...").
   * Kept per catalog object and shape once the service has answered; when it cannot, the
   * definition without that sentence (`findToolsDefinition(shape)`), asked again next time.
   * Never throws.
   */
  async findToolsDefinition<S extends FindToolsShape>(catalog: Catalog, shape: S): Promise<FindToolsDefinitions[S]> {
    const kept = this.#definitions.get(catalog)?.get(shape) as FindToolsDefinitions[S] | undefined;
    if (kept !== undefined) return structuredClone(kept);
    const path = `/v1/catalogs/${encodeURIComponent(catalog.name)}/find_tools?shape=${shape}`;
    let outcome: Outcome<unknown>;
    try {
      outcome = await this.#request("GET", path, undefined, this.timeoutMs);
    } catch {
      return findToolsDefinition(shape); // the service refused (an unknown catalog): the plain one
    }
    const definition = outcome.ok ? field(outcome.body, "definition") : undefined;
    if (!isDefinition(definition, shape)) return findToolsDefinition(shape);
    const typed = (shape === "openai_responses" ? { strict: null, ...definition } : definition) as FindToolsDefinitions[S];
    const shapes = this.#definitions.get(catalog) ?? new Map<FindToolsShape, object>();
    this.#definitions.set(catalog, shapes.set(shape, typed));
    return structuredClone(typed);
  }

  /**
   * Register (or replace) a catalog and have it indexed: `registerCatalog(defineCatalog(...))`,
   * or `registerCatalog(name, body)`. Throws `ServiceUnavailableError` when the service cannot
   * be reached or cannot store it, and a typed error for tool JSON it refuses.
   */
  async registerCatalog(catalog: Catalog): Promise<Registration>;
  async registerCatalog(name: string, body: CatalogRegistration): Promise<Registration>;
  async registerCatalog(catalog: Catalog | string, registration?: CatalogRegistration): Promise<Registration> {
    const name = nameOf(catalog);
    const body = registration ?? (typeof catalog === "string" ? undefined : catalog.registration);
    if (body === undefined) {
      throw new TypeError(`registerCatalog(${JSON.stringify(name)}): pass the registration body`);
    }
    const outcome = await this.#post(`/v1/catalogs/${encodeURIComponent(name)}`, body, this.registerTimeoutMs);
    if (outcome.ok) return outcome.body as Registration;
    const what = outcome.status === null ? outcome.reason : `answered ${outcome.status}`;
    throw new ServiceUnavailableError(
      `toolret could not register ${JSON.stringify(name)} (${what}); try again, the service keeps nothing half-written`,
      outcome.reason,
      outcome.status,
      { cause: outcome.cause },
    );
  }

  /**
   * Report what a turn called against what its selection bound: `turn` is the names of the
   * tools the model called, or the turn's transcript (OpenAI or Anthropic messages). Never
   * throws for an outage: `{ queued: false, reason }`.
   */
  async feedback(
    catalog: Catalog | string,
    selection: Pick<Selection, "names" | "mode">,
    turn: readonly string[] | readonly object[],
    options: FeedbackOptions = {},
  ): Promise<FeedbackResponse> {
    const called = turn.every((item: unknown) => typeof item === "string");
    const body: FeedbackRequest = {
      catalog: nameOf(catalog),
      message: options.message ?? (called ? "" : latestHumanText(turn)),
      bound: [...selection.names],
      mode: selection.mode,
    };
    if (called) body.called = [...(turn as readonly string[])];
    else body.messages = [...(turn as readonly object[])] as NonNullable<FeedbackRequest["messages"]>;
    if (options.learn !== undefined) body.learn = options.learn;
    const outcome = await this.#post("/v1/feedback", body, this.timeoutMs);
    if (outcome.ok) return outcome.body as FeedbackResponse;
    return { queued: false, reason: outcome.reason };
  }

  /** POST `body` as JSON: the answer, or why there is none; a refusal (4xx) is thrown. */
  #post(path: string, body: unknown, timeoutMs: number): Promise<Outcome<unknown>> {
    return this.#request("POST", path, body, timeoutMs);
  }

  async #request(method: "GET" | "POST", path: string, body: unknown, timeoutMs: number): Promise<Outcome<unknown>> {
    const signal = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await this.#fetch(`${this.url}${path}`, {
        method,
        headers: this.#headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal,
      });
    } catch (error) {
      return { ok: false, reason: signal.aborted ? "timeout" : "service_unreachable", status: null, cause: error };
    }
    let text: string;
    try {
      text = await response.text(); // under the same signal: a body that never ends times out
    } catch (error) {
      return { ok: false, reason: signal.aborted ? "timeout" : "service_unreachable", status: response.status, cause: error };
    }
    const status = response.status;
    const parsed = parseJson(text);
    if (status >= 200 && status < 300) {
      return parsed === undefined
        ? { ok: false, reason: "service_error", status, cause: new Error("the answer is not JSON") }
        : { ok: true, body: parsed };
    }
    if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
      throw apiError(status, errorBody(parsed, status, text));
    }
    return { ok: false, reason: "service_error", status, cause: new Error(`toolret answered ${status}: ${text.slice(0, 200)}`) };
  }
}

/**
 * The full roster: every tool of `catalog`, in catalog order; with `bound` (a cache-stable
 * list), core first, then `bound`, then every other tool, so it still extends the list so far.
 * With `allowed`, only the tools it names (names, or `prefix*` patterns).
 */
export function fullRoster(
  catalog: Catalog,
  bound: readonly string[] | null | undefined,
  reason: string,
  allowed?: readonly string[],
): Selection {
  const all = (typeof catalog === "string" ? [] : catalog.names).filter((name) => isAllowed(name, allowed));
  let names = [...all];
  if (bound !== undefined && bound !== null && typeof catalog !== "string") {
    const known = new Set(all);
    const list = new Set([...catalog.core.filter((name) => known.has(name)), ...bound.filter((name) => known.has(name))]);
    names = [...list, ...all.filter((name) => !list.has(name))];
  }
  return { names, mode: "full", reason, schema_tokens: null, roster_tokens: null, unranked: [] };
}

/** Whether `allowed` (tool names, or `prefix*` patterns; undefined: every tool) names `name`. */
export function isAllowed(name: string, allowed?: readonly string[]): boolean {
  if (allowed === undefined) return true;
  return allowed.some((entry) => (entry.endsWith("*") ? name.startsWith(entry.slice(0, -1)) : entry === name));
}

/** The longest timer node keeps: a longer one fires at once (TimeoutOverflowWarning). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

function milliseconds(option: string, value: unknown, otherwise: number): number {
  if (value === undefined) return otherwise;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > MAX_TIMEOUT_MS) {
    throw invalid(option, value, `a number of milliseconds above 0 and at most ${MAX_TIMEOUT_MS}`);
  }
  return value;
}

function invalid(option: string, value: unknown, takes: string): ConfigurationError {
  const shown = typeof value === "string" ? JSON.stringify(value) : typeof value === "number" ? String(value) : typeof value;
  return new ConfigurationError(`new ToolretClient({ ${option} }): ${shown} will not work; ${option} is ${takes}`, option);
}

function nameOf(catalog: Catalog | string): string {
  return typeof catalog === "string" ? catalog : catalog.name;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorBody(parsed: unknown, status: number, text: string): ErrorBody {
  const body = parsed as Partial<ErrorBody> | undefined;
  if (body && typeof body.error === "string" && typeof body.detail === "string") return body as ErrorBody;
  return { error: `http_${status}`, detail: text.slice(0, 500) || `the service answered ${status}` };
}

function isSelection(body: unknown): body is Selection {
  const value = body as Partial<Selection> | null;
  return (
    value !== null &&
    typeof value === "object" &&
    Array.isArray(value.names) &&
    value.names.every((name) => typeof name === "string") &&
    (value.mode === "narrowed" || value.mode === "passthrough" || value.mode === "full")
  );
}

/** A find_tools definition of `shape`: named find_tools, with a description (where `shape` keeps them). */
function isDefinition(value: unknown, shape: FindToolsShape): value is object {
  const named = shape === "openai" ? field(value, "function") : value;
  return field(named, "name") === FIND_TOOLS_NAME && typeof field(named, "description") === "string";
}

function isFound(body: unknown): body is FoundTools {
  const value = body as Partial<FoundTools> | null;
  return value !== null && typeof value === "object" && Array.isArray(value.tools) && Array.isArray(value.results);
}
