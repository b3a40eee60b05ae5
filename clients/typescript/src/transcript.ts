/**
 * Reading a model transcript: the one reader of messages in this package, with the semantics of
 * toolret's Python reader (`toolret/retrieval/_transcript.py`), so `discoveredToolNames` reads
 * the same turn from the same messages in both languages (a test checks them side by side).
 *
 * It accepts what agent loops hold, as plain objects or SDK objects (a field is read as a
 * property either way):
 * - OpenAI Chat Completions: `role`, `tool_calls` (`id`, `function.name`/`arguments`),
 *   `role: "tool"` results with `tool_call_id`.
 * - OpenAI Responses: `function_call` and `function_call_output` items (`call_id`), messages with
 *   `input_text` parts.
 * - Anthropic Messages: `tool_use` blocks in assistant messages, `tool_result` blocks in user
 *   messages (tool results travel in `user` messages).
 * - Gemini `Content`: `role: "model"` parts with `functionCall`, parts with `functionResponse`
 *   (camelCase, or snake_case), `text` parts.
 * - LangChain: messages with `type` (`human`, `ai`, `tool`), `tool_calls` (`name`, `args`,
 *   `id`), `tool_call_id`.
 * - The AI SDK (`ModelMessage`): `tool-call` parts (`toolCallId`, `toolName`, `input`) in
 *   assistant messages, `tool-result` parts (`output`: `{ type: "text" | "json", value }`) in
 *   `role: "tool"` messages.
 *
 * Anything malformed is skipped; nothing here throws.
 */

/** One call the model made: its id (null where the shape has none), the tool, its arguments. */
export interface ToolCall {
  readonly id: string | null;
  readonly name: string;
  readonly arguments: unknown;
}

/** One answer to a call: the call's id, the tool's name where the shape carries it, the content. */
export interface ToolResult {
  readonly callId: string | null;
  readonly name: string | null;
  readonly content: unknown;
}

const TEXT_PART_TYPES = new Set(["text", "input_text"]);
const TOOL_RESULT_TYPES = new Set(["tool_result", "function_call_output", "tool-result"]);
const ASSISTANT = new Set(["assistant", "ai", "model"]);

/** An object's `name` field; undefined for anything that is not an object. */
export function field(value: unknown, name: string): unknown {
  if (value === null || typeof value !== "object") return undefined;
  return (value as Record<string, unknown>)[name] ?? undefined;
}

/** Python's `a or b`: `a` unless it is empty (null, false, 0, "", [] or {}), else `b`. */
function either(a: unknown, b: unknown): unknown {
  return truthy(a) ? a : b;
}

function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value !== null && typeof value === "object") return Object.keys(value).length > 0;
  return Boolean(value);
}

/** A message's content blocks (`content`) or parts (Gemini's `parts`) when a list. */
export function blocks(message: unknown): unknown[] {
  for (const name of ["content", "parts"]) {
    const value = field(message, name);
    if (Array.isArray(value)) return value;
  }
  return [];
}

/** The text of a message's content: a string, or the text parts of a list of blocks. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts = content
    .filter((part) => typeof part === "string" || isText(part))
    .map((part) => (typeof part === "string" ? part : String(either(field(part, "text"), ""))));
  return texts.filter((text) => text).join("\n");
}

function isText(part: unknown): boolean {
  const kind = field(part, "type");
  if (typeof kind === "string" && TEXT_PART_TYPES.has(kind)) return true;
  return kind === undefined && typeof field(part, "text") === "string";
}

/** True for a message a person wrote; false for tool results sent in a `user` message. */
export function isHumanMessage(message: unknown): boolean {
  const role = either(field(message, "role"), field(message, "type"));
  if (role !== "user" && role !== "human") return false;
  const parts = blocks(message);
  return parts.length === 0 || !parts.every(isResultBlock);
}

function isResultBlock(part: unknown): boolean {
  const kind = field(part, "type");
  return (typeof kind === "string" && TOOL_RESULT_TYPES.has(kind)) || functionResponse(part) !== undefined;
}

/** The messages after the last human message (all of them when there is none). */
export function currentTurn(messages: Iterable<unknown>): unknown[] {
  const transcript = [...messages];
  for (let index = transcript.length - 1; index >= 0; index -= 1) {
    if (isHumanMessage(transcript[index])) return transcript.slice(index + 1);
  }
  return transcript;
}

/** The text of the most recent human message ("" when there is none). */
export function latestHumanText(messages: Iterable<unknown>): string {
  const transcript = [...messages];
  for (let index = transcript.length - 1; index >= 0; index -= 1) {
    const message = transcript[index];
    if (!isHumanMessage(message)) continue;
    const content = field(message, "content");
    return contentText(content !== undefined ? content : blocks(message));
  }
  return "";
}

/** Every tool call in `messages`, in order. */
export function toolCalls(messages: Iterable<unknown>): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const message of messages) {
    // One call listed twice in a message (LangChain keeps an Anthropic tool_use block in
    // content beside its tool_calls entry) counts once.
    const seen = new Set<string>();
    for (const call of eachCall(message)) {
      if (call.id === null || !seen.has(call.id)) {
        seen.add(call.id ?? "");
        calls.push(call);
      }
    }
  }
  return calls;
}

function* eachCall(item: unknown): Generator<ToolCall> {
  const itemName = field(item, "name");
  if (field(item, "type") === "function_call" && typeof itemName === "string") {
    yield { id: id(field(item, "call_id")), name: itemName, arguments: field(item, "arguments") };
  }
  const role = either(field(item, "role"), field(item, "type"));
  if (typeof role !== "string" || !ASSISTANT.has(role)) return;
  for (const call of list(field(item, "tool_calls"))) {
    const fn = field(call, "function");
    const name = either(field(call, "name"), field(fn, "name"));
    if (typeof name === "string" && name) {
      yield { id: id(field(call, "id")), name, arguments: either(field(call, "args"), field(fn, "arguments")) };
    }
  }
  for (const block of blocks(item)) {
    const blockName = field(block, "name");
    if (field(block, "type") === "tool_use" && typeof blockName === "string") {
      yield { id: id(field(block, "id")), name: blockName, arguments: field(block, "input") };
    }
    const callName = field(block, "toolName");
    if (field(block, "type") === "tool-call" && typeof callName === "string") {
      yield { id: id(field(block, "toolCallId")), name: callName, arguments: field(block, "input") };
    }
    const call = either(field(block, "function_call"), field(block, "functionCall"));
    const functionName = field(call, "name");
    if (call !== undefined && typeof functionName === "string") {
      yield { id: id(field(call, "id")), name: functionName, arguments: field(call, "args") };
    }
  }
}

/** Every tool result in `messages`, in order. */
export function toolResults(messages: Iterable<unknown>): ToolResult[] {
  const results: ToolResult[] = [];
  for (const message of messages) results.push(...eachResult(message));
  return results;
}

function* eachResult(item: unknown): Generator<ToolResult> {
  const kind = field(item, "type");
  const role = field(item, "role");
  if (kind === "tool" || role === "tool") {
    yield { callId: id(field(item, "tool_call_id")), name: id(field(item, "name")), content: field(item, "content") };
  }
  if (kind === "function_call_output") {
    yield { callId: id(field(item, "call_id")), name: null, content: field(item, "output") };
  }
  if (!["user", "human", "function", "tool"].includes(role as string) && kind !== "human") return;
  for (const block of blocks(item)) {
    if (field(block, "type") === "tool_result") {
      yield { callId: id(field(block, "tool_use_id")), name: null, content: field(block, "content") };
    }
    if (field(block, "type") === "tool-result") {
      yield { callId: id(field(block, "toolCallId")), name: id(field(block, "toolName")), content: field(block, "output") };
    }
    const response = functionResponse(block);
    if (response !== undefined) {
      yield { callId: id(field(response, "id")), name: id(field(response, "name")), content: field(response, "response") };
    }
  }
}

function functionResponse(part: unknown): unknown {
  return either(field(part, "function_response"), field(part, "functionResponse"));
}

/**
 * The JSON a tool result carries: parsed from its text (a string, or text blocks), or the object
 * itself (a Gemini function response, whose JSON text may sit under `result` or `output`; an AI
 * SDK output, `{ type: "text" | "json", value }`). Undefined when it is not JSON.
 */
export function resultPayload(content: unknown): unknown {
  const kind = field(content, "type");
  if ((kind === "text" || kind === "json") && "value" in (content as object)) {
    const value = field(content, "value");
    return kind === "text" ? (typeof value === "string" ? json(value) : undefined) : value;
  }
  if (content !== null && typeof content === "object" && !Array.isArray(content)) {
    const entries = Object.entries(content);
    const wrapped = entries.filter(([key]) => key === "result" || key === "output").map(([, v]) => v);
    if (entries.length === 1 && wrapped.length === 1 && typeof wrapped[0] === "string") {
      return json(wrapped[0]);
    }
    return content;
  }
  if (typeof content === "string") return json(content);
  const text = list(content)
    .map((part) => field(part, "text"))
    .filter((t): t is string => typeof t === "string")
    .join("");
  return json(text);
}

function json(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function id(value: unknown): string | null {
  return typeof value === "string" && value ? value : null;
}
