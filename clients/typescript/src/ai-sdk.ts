/**
 * toolret for the AI SDK (`ai`): `@toolret/client/ai-sdk`.
 *
 *     const crm = await catalogFromAiSdk("crm", tools, { core: ["find_records"] });
 *     const retrieval = await aiSdkRetrieval({ toolret, catalog: crm, tools });
 *     await generateText({ model, messages, tools: retrieval.tools,
 *                          prepareStep: retrieval.prepareStep, stopWhen: isStepCount(8) });
 *
 * Before each step, `prepareStep` sets `activeTools` (and `toolOrder`) to the core tools, the
 * best `k` for the turn's latest user message (one selection per turn, reused by its steps) and
 * what find_tools found in this turn, read back from the step's messages; tools the catalog
 * does not hold (find_tools, provider tools) stay active. Whatever fails, it returns nothing
 * and the step has every tool; a refusal of the service (an unknown catalog, a bad token) is
 * also logged once and handed to `onError`. `retrieval.stable(list)` keeps a conversation's list growing by
 * prefix instead (the provider's prompt cache holds). The catalog is built from the tools'
 * own schemas (zod or JSON Schema), so nothing is restated.
 *
 * `ai` is an optional peer dependency of `@toolret/client`: install it beside it.
 */

import { type PrepareStepFunction, type Tool, type ToolSet, asSchema, jsonSchema, tool } from "ai";

import { catalogOfFunctions } from "./catalog.js";
import { FIND_TOOLS_NAME, capabilitiesSchema, checkFindToolsName } from "./findTools.js";
import { toolNames } from "./tools.js";
import { TurnSelector, type TurnSelectorOptions } from "./turnSelector.js";
import type { Catalog, CatalogOptions } from "./types.js";

/** find_tools as an AI SDK tool: capabilities in, the JSON answer the model reads out. */
export type FindToolsTool = Tool<{ capabilities: string[] }, string>;

/** Your tools with find_tools beside them: the record to pass as `tools`. */
export type WithFindTools<TOOLS extends ToolSet> = TOOLS & { find_tools: FindToolsTool };

/**
 * A catalog of the AI SDK tools `tools` (your `ToolSet`), to register and to select from:
 * each function tool as its name, its description and its input schema as JSON Schema (a zod
 * schema converted as the AI SDK converts it for the model). Provider-defined tools are left
 * out: they are always sent.
 */
export async function catalogFromAiSdk(name: string, tools: ToolSet, options: CatalogOptions = {}): Promise<Catalog> {
  const entries = await Promise.all(
    Object.entries(tools)
      .filter(([, entry]) => entry.type !== "provider")
      .map(async ([toolName, entry]) => ({
        type: "function" as const,
        function: {
          name: toolName,
          description: typeof entry.description === "string" ? entry.description : "",
          parameters: await asSchema(entry.inputSchema).jsonSchema,
        },
      })),
  );
  return catalogOfFunctions(name, entries, options);
}

/** What `aiSdkRetrieval` takes. */
export interface AiSdkRetrievalOptions<TOOLS extends ToolSet> extends TurnSelectorOptions {
  /** Every tool the agent may call (the record the catalog was built from). */
  tools: TOOLS;
}

/** The tools and the step hook to pass to `generateText`, `streamText` or a `ToolLoopAgent`. */
export interface AiSdkRetrieval<TOOLS extends ToolSet> {
  /** Your tools and find_tools: pass as `tools`. */
  tools: WithFindTools<TOOLS>;
  /** Narrows each step to the turn's selection plus this turn's discoveries: pass as `prepareStep`. */
  prepareStep: PrepareStepFunction<WithFindTools<TOOLS>>;
  /**
   * The same, keeping a conversation's list cache-stable: `list` (`[]` at the conversation's
   * start, kept with it) is grown in place, core first, then in first-seen order, and each
   * step sends it in that order, so every step's tools extend the last one's.
   */
  stable(list: string[]): PrepareStepFunction<WithFindTools<TOOLS>>;
  /** What chooses: the turn's selection, its bound names, find_tools' answers. */
  selector: TurnSelector;
}

/**
 * toolret's selection as AI SDK `tools` and `prepareStep`, find_tools included (its
 * description, asked of the service once here, names what lies behind it).
 */
export async function aiSdkRetrieval<TOOLS extends ToolSet>(options: AiSdkRetrievalOptions<TOOLS>): Promise<AiSdkRetrieval<TOOLS>> {
  const instead = "select with a TurnSelector and bind no find_tools";
  checkFindToolsName([...options.catalog.names, ...Object.keys(options.tools)], instead);
  const selector = new TurnSelector(options);
  const findTools: FindToolsTool = tool({
    description: await selector.description(),
    inputSchema: jsonSchema<{ capabilities: string[] }>(capabilitiesSchema()),
    execute: async (input, { messages }) => selector.answer(input, messages),
  });
  const tools: WithFindTools<TOOLS> = { ...options.tools, [FIND_TOOLS_NAME]: findTools };
  const known = new Set(selector.catalog.names);
  const core = new Set(selector.catalog.core);
  const others = Object.keys(tools).filter((name) => !known.has(name));

  const step =
    (held?: string[]): PrepareStepFunction<WithFindTools<TOOLS>> =>
    async ({ messages }) => {
      try {
        const bound = await selector.bound(messages, held);
        if (held !== undefined) held.splice(0, held.length, ...bound.held);
        const order = [...bound.names.filter((n) => core.has(n)), ...others, ...bound.names.filter((n) => !core.has(n))];
        const active = toolNames(tools, order);
        return { activeTools: active, toolOrder: active };
      } catch {
        return {}; // fail-open: the step keeps every tool
      }
    };
  return { tools, prepareStep: step(), stable: (list) => step(list), selector };
}
