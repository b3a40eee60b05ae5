/**
 * toolret for LangChain.js agents (`langchain`'s `createAgent`, which runs on LangGraph.js):
 * `@toolret/client/langchain`.
 *
 *     const crm = catalogFromLangChain("crm", tools, { core: ["find_records"] });
 *     const agent = createAgent({ model, tools, middleware: [await toolretMiddleware({ toolret, catalog: crm })] });
 *
 * The middleware's `wrapModelCall` narrows each model call's tools to the core tools, the best
 * `k` for the turn's latest human message (one selection per turn, reused by its model calls)
 * and what find_tools found in this turn, read back from the messages; tools the catalog does
 * not hold (find_tools, provider tools) pass through. It registers find_tools itself. Whatever
 * fails, the call goes out with every tool it had; a refusal of the service (an unknown catalog,
 * a bad token) is also logged once and handed to `onError`. With `stable: true` the tools come in the
 * conversation's first-seen order, core first, and only grow, kept in the agent state under
 * `toolret_tools`, so the provider's prompt cache holds across turns.
 *
 * `langchain`, `@langchain/core` and `zod` (which `langchain` uses) are optional peer
 * dependencies of `@toolret/client`: install them beside it.
 */

import { type StructuredToolInterface, tool } from "@langchain/core/tools";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { createMiddleware } from "langchain";
import { z } from "zod";

import { catalogOfFunctions } from "./catalog.js";
import { FIND_TOOLS_NAME, capabilitiesSchema, checkFindToolsName } from "./findTools.js";
import { toolName } from "./tools.js";
import { field } from "./transcript.js";
import { TurnSelector, type TurnSelectorOptions } from "./turnSelector.js";
import type { Catalog, CatalogOptions } from "./types.js";

/** Where `stable: true` keeps the conversation's tool list in the agent state. */
export const STATE_KEY = "toolret_tools";

/**
 * A catalog of LangChain tools (`tool(...)`, `StructuredTool`s), to register and to select
 * from: each as LangChain's own OpenAI function definition (`convertToOpenAITool`), so zod
 * schemas are not restated.
 */
export function catalogFromLangChain(
  name: string,
  tools: readonly StructuredToolInterface[],
  options: CatalogOptions = {},
): Catalog {
  return catalogOfFunctions(name, tools.map((entry) => convertToOpenAITool(entry)), options);
}

/** What `toolretMiddleware` takes. */
export interface ToolretMiddlewareOptions extends TurnSelectorOptions {
  /** Keep each conversation's tool list growing by prefix, in the agent state (`toolret_tools`). */
  stable?: boolean | undefined;
}

const State = z.object({ [STATE_KEY]: z.array(z.string()).optional() });

/**
 * The agent middleware: narrows each model call's tools and registers find_tools (its
 * description, asked of the service once here, names what lies behind it).
 */
export async function toolretMiddleware(options: ToolretMiddlewareOptions) {
  checkFindToolsName(options.catalog.names, "select with a TurnSelector and bind no find_tools");
  const selector = new TurnSelector(options);
  const stable = options.stable === true;
  const known = new Set(selector.catalog.names);
  const core = new Set(selector.catalog.core);
  const held = (state: unknown): string[] | undefined => {
    if (!stable) return undefined;
    const list = field(state, STATE_KEY);
    return Array.isArray(list) ? list.filter((name): name is string => typeof name === "string") : [];
  };
  const findTools = tool(
    async (input: { capabilities: string[] }, runtime: unknown) => {
      const state = field(runtime, "state");
      const messages = field(state, "messages");
      return selector.answer(input, Array.isArray(messages) ? messages : [], held(state));
    },
    { name: FIND_TOOLS_NAME, description: await selector.description(), schema: capabilitiesSchema() },
  );
  return createMiddleware({
    name: "ToolretMiddleware",
    stateSchema: State,
    tools: [findTools],
    beforeModel: async (state) => {
      if (!stable) return undefined;
      try {
        return { [STATE_KEY]: (await selector.bound(state.messages, held(state))).held };
      } catch {
        return undefined; // the list stays as it was; the model call falls open
      }
    },
    wrapModelCall: async (request, handler) => {
      let names: string[];
      try {
        names = (await selector.bound(request.messages, held(request.state))).names;
      } catch {
        return handler(request); // fail-open: every tool the call had
      }
      const order = new Map(names.map((name, index) => [name, index]));
      const named = (request.tools ?? []).map((entry) => ({ entry, name: toolName(entry) ?? "" }));
      const bound = named.filter(({ name }) => order.has(name)).sort((a, b) => order.get(a.name)! - order.get(b.name)!);
      const tools = [
        ...bound.filter(({ name }) => core.has(name)),
        ...named.filter(({ name }) => !known.has(name)),
        ...bound.filter(({ name }) => !core.has(name)),
      ].map(({ entry }) => entry);
      return handler({ ...request, tools });
    },
  });
}
