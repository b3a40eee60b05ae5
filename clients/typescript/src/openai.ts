/**
 * One agent turn with the OpenAI SDK (`openai`), find_tools bound beside the selection: Chat
 * Completions (`openaiChatTurn`) or the Responses API (`openaiResponsesTurn`). The SDK is not
 * imported: you pass the call, so the model, reasoning and every other option stay yours.
 *
 *     const { reply } = await openaiChatTurn({
 *       toolret, catalog, tools, messages, runTool,
 *       create: (request) => openai.chat.completions.create({ model, ...request }),
 *     });
 *
 * Every call of a reply is answered: each `tool_calls` entry by a `tool` message right after the
 * assistant message (Chat Completions), each `function_call` by a `function_call_output` item
 * after the whole `output` is sent back, reasoning items included (Responses).
 */

import { type TurnOptions, type TurnResult, DEFAULT_MAX_ROUNDS, answerCall, parsedArguments, turnStart } from "./turn.js";
import { roundTools } from "./tools.js";
import type { FindToolsDefinitions } from "./findTools.js";

/** The parts of a Chat Completions reply the loop reads (the SDK's `ChatCompletion` fits). */
export interface ChatReply {
  choices: readonly {
    message: {
      tool_calls?: readonly (
        | { id: string; type: "function"; function: { name: string; arguments: string } }
        | { id: string; type: "custom"; custom: { name: string; input: string } }
      )[] | null;
    };
  }[];
}

/** What `create` is given each round. */
export interface ChatRequest<T, M> {
  tools: (T | FindToolsDefinitions["openai"])[];
  messages: M[];
}

export interface ChatTurnOptions<T, M, R extends ChatReply> extends TurnOptions<T, M> {
  /** Calls the model: `(request) => client.chat.completions.create({ model, ...request })`. */
  create: (request: ChatRequest<T, M>) => Promise<R>;
}

/** Runs one Chat Completions turn to the model's answer; `messages` is appended to. */
export async function openaiChatTurn<T, M, R extends ChatReply>(
  options: ChatTurnOptions<T, M, R>,
): Promise<TurnResult<R>> {
  const [selection, definition] = await turnStart(options, "openai");
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
  for (let round = 1; ; round += 1) {
    const { bound, tools } = roundTools(options.tools, selection, options.messages, "openai", definition);
    const reply = await options.create({ tools, messages: options.messages });
    const message = reply.choices[0]?.message;
    const calls = message?.tool_calls ?? [];
    if (message === undefined || calls.length === 0) return { reply, selection, rounds: round };
    options.messages.push(message as M);
    for (const call of calls) {
      const [name, input] =
        call.type === "function"
          ? [call.function.name, parsedArguments(call.function.arguments)]
          : [call.custom.name, call.custom.input];
      const { content } = await answerCall(options, { name, input, id: call.id }, bound, selection);
      options.messages.push({ role: "tool", tool_call_id: call.id, content: text(content) } as M);
    }
    if (round >= maxRounds) return { reply, selection, rounds: round };
  }
}

/** The parts of a Responses API reply the loop reads (the SDK's `Response` fits). */
export interface ResponsesReply {
  output: readonly { type: string }[];
}

interface FunctionCallItem {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
}

/** What `create` is given each round: the round's tools and every item so far. */
export interface ResponsesRequest<T, M> {
  tools: (T | FindToolsDefinitions["openai_responses"])[];
  input: M[];
}

export interface ResponsesTurnOptions<T, M, R extends ResponsesReply> extends TurnOptions<T, M> {
  /** Calls the model: `(request) => client.responses.create({ model, ...request })`. */
  create: (request: ResponsesRequest<T, M>) => Promise<R>;
}

/** Runs one Responses turn to the model's answer; `messages` (the input items) is appended to. */
export async function openaiResponsesTurn<T, M, R extends ResponsesReply>(
  options: ResponsesTurnOptions<T, M, R>,
): Promise<TurnResult<R>> {
  const [selection, definition] = await turnStart(options, "openai_responses");
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
  for (let round = 1; ; round += 1) {
    const { bound, tools } = roundTools(options.tools, selection, options.messages, "openai_responses", definition);
    const reply = await options.create({ tools, input: options.messages });
    const calls = reply.output.filter((item): item is FunctionCallItem => item.type === "function_call");
    if (calls.length === 0) return { reply, selection, rounds: round };
    options.messages.push(...(reply.output as unknown as M[])); // all of it: reasoning items too
    for (const call of calls) {
      const id = call.call_id;
      const input = parsedArguments(call.arguments);
      const { content } = await answerCall(options, { name: call.name, input, id }, bound, selection);
      options.messages.push({ type: "function_call_output", call_id: id, output: text(content) } as M);
    }
    if (round >= maxRounds) return { reply, selection, rounds: round };
  }
}

function text(content: unknown): string {
  return typeof content === "string" ? content : JSON.stringify(content);
}
