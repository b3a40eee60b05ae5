/**
 * One agent turn with the Anthropic SDK (`@anthropic-ai/sdk`, Messages API), find_tools bound
 * beside the selection. The SDK is not imported: you pass the call, so any version, streaming or
 * not, and any options (system, thinking, headers) stay yours.
 *
 *     const { reply } = await anthropicTurn({
 *       toolret, catalog, tools, messages, runTool,
 *       create: (request) => anthropic.messages.create({ model, max_tokens: 1024, ...request }),
 *     });
 *
 * Each round sends the selection plus what find_tools found in this turn, and answers every
 * `tool_use` of the reply in the next user message, `tool_result` blocks first and in order
 * (the API refuses a request that leaves one unanswered). The assistant's content goes back as
 * it came, thinking blocks included.
 */

import { type TurnOptions, type TurnResult, DEFAULT_MAX_ROUNDS, answerCall, turnStart } from "./turn.js";
import { roundTools } from "./tools.js";
import type { FindToolsDefinitions } from "./findTools.js";

/** The parts of a Messages API reply the loop reads (the SDK's `Message` fits). */
export interface AnthropicReply {
  content: readonly { type: string; id?: string; name?: string; input?: unknown }[];
}

/** What `create` is given each round: the round's tools and the whole conversation. */
export interface AnthropicRequest<T, M> {
  tools: (T | FindToolsDefinitions["anthropic"])[];
  messages: M[];
}

export interface AnthropicTurnOptions<T, M, R extends AnthropicReply> extends TurnOptions<T, M> {
  /** Calls the model: `(request) => client.messages.create({ model, max_tokens, ...request })`. */
  create: (request: AnthropicRequest<T, M>) => Promise<R>;
}

/** Runs one turn to the model's answer; `messages` is appended to as the turn goes. */
export async function anthropicTurn<T, M, R extends AnthropicReply>(
  options: AnthropicTurnOptions<T, M, R>,
): Promise<TurnResult<R>> {
  const [selection, definition] = await turnStart(options, "anthropic");
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
  for (let round = 1; ; round += 1) {
    const { bound, tools } = roundTools(options.tools, selection, options.messages, "anthropic", definition);
    const reply = await options.create({ tools, messages: options.messages });
    const calls = reply.content.filter((block) => block.type === "tool_use");
    if (calls.length === 0) return { reply, selection, rounds: round };
    const results = [];
    for (const block of calls) {
      const call = { name: block.name ?? "", input: block.input, id: block.id ?? "" };
      const { content, isError } = await answerCall(options, call, bound, selection);
      results.push({
        type: "tool_result" as const,
        tool_use_id: call.id,
        content: content as string,
        ...(isError ? { is_error: true } : {}),
      });
    }
    options.messages.push(
      { role: "assistant", content: reply.content } as M,
      { role: "user", content: results } as M,
    );
    if (round >= maxRounds) return { reply, selection, rounds: round };
  }
}
