/**
 * @toolret/client: the tools to send a model for each message, from toolret serve.
 *
 * - `ToolretClient`: `select`, `findTools`, `registerCatalog`, `feedback`, failing open to every
 *   tool of the catalog when the service is slow, down or failing.
 * - `defineCatalog`: a catalog from the tool JSON you register.
 * - find_tools for any provider: `findToolsDefinition`, `answerFindTools`, `discoveredToolNames`.
 * - `toolsNamed`: your provider tools (an array, or the AI SDK's record) narrowed to a selection.
 * - `TurnSelector`: what to bind before each model call of a turn, for a framework's hook
 *   (`@toolret/client/ai-sdk`, `@toolret/client/langchain`).
 * - One agent turn, every tool call answered: `anthropicTurn`, `openaiChatTurn`,
 *   `openaiResponsesTurn`.
 */

export { ToolretClient, DEFAULT_TIMEOUT_MS, DEFAULT_REGISTER_TIMEOUT_MS, fullRoster } from "./client.js";
export type { ToolretClientOptions, SelectOptions, FindToolsOptions, FeedbackOptions } from "./client.js";
export { defineCatalog, mcpToolName } from "./catalog.js";
export {
  ToolretError,
  ConfigurationError,
  CatalogError,
  ServiceUnavailableError,
  ToolretApiError,
  InvalidRequestError,
  UnauthorizedError,
  ForbiddenError,
  UnknownCatalogError,
} from "./errors.js";
export {
  FIND_TOOLS_NAME,
  MAX_DISCOVERED_TOOLS,
  answerFindTools,
  capabilitiesSchema,
  discoveredToolNames,
  findToolsDefinition,
  unavailableMessage,
} from "./findTools.js";
export type { FindToolsShape, FindToolsDefinitions, ToolFinder } from "./findTools.js";
export { roundTools, toolName, toolNames, toolsNamed } from "./tools.js";
export { KEPT_SELECTIONS, TurnSelector } from "./turnSelector.js";
export type { BoundNames, TurnSelectorOptions } from "./turnSelector.js";
export { currentTurn, latestHumanText, toolCalls, toolResults } from "./transcript.js";
export type { ToolCall, ToolResult } from "./transcript.js";
export { anthropicTurn } from "./anthropic.js";
export type { AnthropicReply, AnthropicRequest, AnthropicTurnOptions } from "./anthropic.js";
export { openaiChatTurn, openaiResponsesTurn } from "./openai.js";
export type {
  ChatReply,
  ChatRequest,
  ChatTurnOptions,
  ResponsesReply,
  ResponsesRequest,
  ResponsesTurnOptions,
} from "./openai.js";
export type { RunTool, TurnOptions, TurnResult } from "./turn.js";
export type {
  CapabilityResult,
  Catalog,
  CatalogOptions,
  CatalogRegistration,
  ClientReason,
  ErrorBody,
  FeedbackRequest,
  FeedbackResponse,
  FindToolsRequest,
  FoundTool,
  FoundTools,
  Mode,
  Registration,
  SelectRequest,
  Selection,
} from "./types.js";
