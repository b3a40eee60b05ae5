/**
 * The wire types of toolret serve, named for use: each is a schema of the service's
 * `/openapi.json`, generated into `./openapi.ts` (never edited by hand).
 */

import type { components } from "./openapi.js";

type Schemas = components["schemas"];

/** `POST /v1/select`'s body. */
export type SelectRequest = Schemas["SelectRequest"];
/** The tools to send the model this turn (`names`), and how they were chosen. */
export type Selection = Schemas["SelectResponse"];
/** `POST /v1/find_tools`'s body. */
export type FindToolsRequest = Schemas["FindToolsRequest"];
/** One tool find_tools found. */
export type FoundTool = Schemas["FoundTool"];
/** One capability's tools, best first; `reason` when it could not be searched. */
export type CapabilityResult = Schemas["CapabilityResult"];
/**
 * What find_tools found: each capability's tools (`results`, in the order asked), all of them
 * (`tools`); `reason` says why there are none when no search could run.
 */
export type FoundTools = Schemas["FindToolsResponse"];
/**
 * `POST /v1/catalogs/{name}`'s body: OpenAI or Anthropic tool JSON (`tools`, the SDKs' own tool
 * types fit), or MCP listings (`servers`: each server's `tools/list` result or list of tools).
 */
export type CatalogRegistration = Omit<Schemas["CatalogRegistration"], "tools"> & {
  tools?: readonly object[] | null | undefined;
};
/** What registering a catalog did: its size, its warnings and its indexing. */
export type Registration = Schemas["RegistrationResponse"];
/** `POST /v1/feedback`'s body. */
export type FeedbackRequest = Schemas["FeedbackRequest"];
/** Whether the feedback was queued for the worker, and why not. */
export type FeedbackResponse = Schemas["FeedbackResponse"];
/** A refusal's body: a stable code, what to do, and the field at fault. */
export type ErrorBody = Schemas["Error"];

/** How a selection's tools were chosen: `full` carries the reason. */
export type Mode = Selection["mode"];

/**
 * Why this client answered in place of the service: it did not answer within `timeoutMs`
 * (`timeout`), could not be reached (`service_unreachable`), or answered with a server error or
 * something that is not its API (`service_error`).
 */
export type ClientReason = "timeout" | "service_unreachable" | "service_error";

/**
 * A catalog as the caller holds it: its registered name, every tool's name in catalog order,
 * and its core tools. A selection that falls open answers every one of `names`, so build it
 * with `defineCatalog` from the tools you register.
 */
export interface Catalog {
  readonly name: string;
  readonly names: readonly string[];
  readonly core: readonly string[];
  /** The body `registerCatalog(catalog)` sends, when the catalog was built from one. */
  readonly registration?: CatalogRegistration | undefined;
}

/**
 * What a catalog built from a framework's tools takes besides them: its core tools, example
 * requests and keywords, as the registration names them (a field given as `undefined` is unset).
 */
export type CatalogOptions = { [K in "core" | "examples" | "keywords"]?: CatalogRegistration[K] | undefined };
