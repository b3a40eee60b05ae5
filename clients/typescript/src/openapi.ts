// Generated from toolret serve's /openapi.json by scripts/generate.mjs (openapi-typescript).
// Do not edit: regenerate it; a test fails when it drifts from the service.

export interface paths {
    "/v1/select": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Core tools plus the best k for a message; the full roster on any failure */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["SelectRequest"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["SelectResponse"];
                    };
                };
                /** @description The body is not JSON */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No bearer token, or an unknown one */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The token may not use this catalog */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No catalog is registered under that name */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The body is larger than TOOLRET_SERVE_MAX_BODY_BYTES */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The Content-Type is not application/json */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A field does not validate (named in `field`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database is unreachable and this process has not built the catalog yet */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/find_tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Up to 5 tools for each capability phrase (up to 5 of them), none already bound and none repeated across them */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["FindToolsRequest"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["FindToolsResponse"];
                    };
                };
                /** @description The body is not JSON */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No bearer token, or an unknown one */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The token may not use this catalog */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No catalog is registered under that name */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The body is larger than TOOLRET_SERVE_MAX_BODY_BYTES */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The Content-Type is not application/json */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A field does not validate (named in `field`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database is unreachable and this process has not built the catalog yet */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/catalogs/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Register or replace a catalog, and have it indexed (by the worker, or inline when no worker is configured) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["CatalogRegistration"];
                };
            };
            responses: {
                /** @description Replaced (or unchanged) */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["RegistrationResponse"];
                    };
                };
                /** @description Registered under a new name */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["RegistrationResponse"];
                    };
                };
                /** @description The body is not JSON */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No bearer token, or an unknown one */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The token may not use this name, or the service's database role may not register catalogs (`read_only`) */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The body is larger than TOOLRET_SERVE_MAX_BODY_BYTES */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The Content-Type is not application/json */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description Tool JSON a catalog cannot be built from (see `field`); with `third_party: false`, also a thin description or an input schema model providers refuse (`detail` names the tool and the JSON pointer) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database cannot store or index the catalog now (send it again) */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/catalogs/{name}/find_tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The find_tools definition to bind for this catalog, in a provider's shape; its description names what lies behind it */
        get: {
            parameters: {
                query?: {
                    shape?: "openai" | "openai_responses" | "anthropic" | "gemini" | "mcp";
                };
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["FindToolsDefinition"];
                    };
                };
                /** @description No valid token */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The token may not use this name */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No catalog is registered under that name */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The catalog has a tool of its own named find_tools: rename it */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description An unknown shape */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database is unreachable and this process has not built the catalog yet */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Report what a turn called against what its selection bound */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["FeedbackRequest"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["FeedbackResponse"];
                    };
                };
                /** @description The body is not JSON */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No bearer token, or an unknown one */
                401: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The token may not use this catalog */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description No catalog is registered under that name */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The body is larger than TOOLRET_SERVE_MAX_BODY_BYTES */
                413: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The Content-Type is not application/json */
                415: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description A field does not validate (named in `field`) */
                422: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description The database is unreachable and this process has not built the catalog yet */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process is up */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Health"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The database answers, its schema is current and the embedder is warm (503 otherwise) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Readiness"];
                    };
                };
                /** @description Not ready */
                503: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Readiness"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus text of toolret's OpenTelemetry metrics */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description text/plain; version=0.0.4 */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * CapabilityResult
         * @description One capability's tools, best first; ``reason`` when it could not be searched.
         */
        CapabilityResult: {
            /** Capability */
            capability: string;
            /** Tools */
            tools: components["schemas"]["FoundTool"][];
            /**
             * Reason
             * @default null
             */
            reason?: string | null;
        };
        /**
         * CatalogRegistration
         * @description ``POST /v1/catalogs/{name}``: tool JSON (``openai``, ``anthropic``) or MCP listings.
         */
        CatalogRegistration: {
            /**
             * Format
             * @enum {string}
             */
            format: "openai" | "anthropic" | "mcp";
            /**
             * Tools
             * @description OpenAI or Anthropic tool definitions (format openai or anthropic)
             * @default null
             */
            tools?: {
                [key: string]: unknown;
            }[] | null;
            /**
             * Servers
             * @description Server name → its tools/list result or list of tools (format mcp)
             * @default null
             */
            servers?: {
                [key: string]: unknown;
            } | null;
            /**
             * Core
             * @description Tools always sent
             */
            core?: string[];
            /**
             * Examples
             * @description Tool name → example requests (any language)
             * @default null
             */
            examples?: {
                [key: string]: string[];
            } | null;
            /**
             * Keywords
             * @description Tool name → keywords
             * @default null
             */
            keywords?: {
                [key: string]: string[];
            } | null;
            /**
             * Third Party
             * @description Whether someone else wrote these tools (the default: true). Then a thin description or an input schema model providers refuse is a warning and the tool is kept; false (tools your application writes): a 422 naming the tool
             * @default null
             */
            third_party?: boolean | null;
        };
        /**
         * FeedbackRequest
         * @description ``POST /v1/feedback``: what a turn called against what its selection bound.
         */
        FeedbackRequest: {
            /**
             * Catalog
             * @description A registered catalog's name
             * @example crm
             */
            catalog: string;
            /**
             * Message
             * @description The message the selection was made for
             */
            message: string;
            /**
             * Bound
             * @description The names the selection returned
             */
            bound: string[];
            /**
             * Mode
             * @default narrowed
             * @enum {string}
             */
            mode?: "narrowed" | "passthrough" | "full";
            /**
             * Called
             * @description The tools the model called
             * @default null
             */
            called?: string[] | null;
            /**
             * Messages
             * @description Or the turn's transcript (OpenAI or Anthropic messages)
             * @default null
             */
            messages?: {
                [key: string]: unknown;
            }[] | null;
            /**
             * Learn
             * @description Let the worker learn from misses
             * @default null
             */
            learn?: boolean | null;
        };
        /** FeedbackResponse */
        FeedbackResponse: {
            /** Queued */
            queued: boolean;
            /**
             * Reason
             * @default null
             */
            reason?: string | null;
        };
        /**
         * FindToolsDefinition
         * @description ``GET /v1/catalogs/{name}/find_tools?shape=…``: the find_tools definition to bind for
         *     this catalog, in the provider's shape, its description naming what lies behind it (Gemini's
         *     schema under ``parametersJsonSchema``, the JSON wire's name).
         */
        FindToolsDefinition: {
            /** Definition */
            definition: {
                [key: string]: unknown;
            };
        };
        /**
         * FindToolsRequest
         * @description ``POST /v1/find_tools``: tools for the capabilities the model asked for (the arguments
         *     of its find_tools call: ``capabilities``, or one ``query``).
         */
        FindToolsRequest: {
            /**
             * Catalog
             * @description A registered catalog's name
             * @example crm
             */
            catalog: string;
            /**
             * Capabilities
             * @description The capabilities, in plain language (any language), up to 5; each is ranked on its own
             * @default null
             * @example [
             *       "link two records",
             *       "send the summary by email"
             *     ]
             */
            capabilities?: string[] | null;
            /**
             * Query
             * @description One capability, instead of capabilities
             * @default null
             */
            query?: string | null;
            /**
             * Bound
             * @description Names already bound: left out
             */
            bound?: string[];
            /**
             * Limit
             * @description At most this many tools a capability
             * @default 5
             */
            limit?: number;
            /**
             * Allowed
             * @description Search only among these tools (names, or prefix patterns such as github__*); narrows the token's own list, never widens it
             * @default null
             */
            allowed?: string[] | null;
        };
        /**
         * FindToolsResponse
         * @description Per capability asked, in order, up to ``limit`` tools, none repeated across capabilities
         *     (``results``); every tool found, in that order (``tools``); ``reason`` says why there are
         *     none when no search could run.
         */
        FindToolsResponse: {
            /** Results */
            results: components["schemas"]["CapabilityResult"][];
            /** Tools */
            tools: components["schemas"]["FoundTool"][];
            /**
             * Reason
             * @default null
             */
            reason?: string | null;
        };
        /** FoundTool */
        FoundTool: {
            /** Name */
            name: string;
            /** Description */
            description: string;
        };
        /** Health */
        Health: {
            /**
             * Status
             * @constant
             */
            status: "ok";
        };
        /**
         * Indexing
         * @description What happened to the catalog's vectors: ``current`` (already served), ``queued`` (the
         *     worker will index it), ``indexed`` (indexed inline, now served), ``failed`` (see
         *     ``detail``; selections fall open with ``not_indexed`` until it is indexed).
         */
        Indexing: {
            /**
             * State
             * @enum {string}
             */
            state: "current" | "queued" | "indexed" | "failed";
            /**
             * Detail
             * @default null
             */
            detail?: string | null;
        };
        /**
         * Readiness
         * @description Ready when the database answers, its schema is the one this toolret queries, and the
         *     embedder's warm-up is over (``warming`` until then: a selection would wait for it and may
         *     send every tool). A warm-up that failed leaves the process ready: its breaker sends the full
         *     roster at once, as every process's would.
         */
        Readiness: {
            /** Ready */
            ready: boolean;
            /** Database */
            database: string;
            /**
             * Embedder
             * @enum {string}
             */
            embedder: "warming" | "warm" | "unavailable" | "unused";
            /** Schema Revision */
            schema_revision: string | null;
            /** Expected Revision */
            expected_revision: string;
        };
        /** RegistrationResponse */
        RegistrationResponse: {
            /** Catalog */
            catalog: string;
            /** Tools */
            tools: number;
            /** Core */
            core: number;
            /** Created */
            created: boolean;
            /** Warnings */
            warnings: components["schemas"]["ToolWarning"][];
            indexing: components["schemas"]["Indexing"];
        };
        /**
         * SelectRequest
         * @description ``POST /v1/select``: the tools to send the model with this message.
         */
        SelectRequest: {
            /**
             * Catalog
             * @description A registered catalog's name
             * @example crm
             */
            catalog: string;
            /**
             * Message
             * @description The user's message (any language)
             */
            message: string;
            /**
             * Resume
             * @description A resumed turn: the full roster, nothing ranked
             * @default false
             */
            resume?: boolean;
            /**
             * Bound
             * @description Keep this conversation's tool list cache-stable: send [] on its first turn, then the names the previous selection returned; the answer extends that list (core first, then in first-seen order), so the provider's prompt cache holds
             * @default null
             */
            bound?: string[] | null;
            /**
             * K
             * @description Non-core tools to bind (default 12)
             * @default null
             */
            k?: number | null;
            /**
             * Allowed
             * @description Rank only among these tools (names, or prefix patterns such as github__*), core tools included; narrows the token's own list, never widens it
             * @default null
             * @example [
             *       "find_records",
             *       "github__*"
             *     ]
             */
            allowed?: string[] | null;
            /**
             * Explain
             * @description Also answer why (explain): the tools near the cut with their scores by signal, where the cut at k fell, the language gate's decision, time per step
             * @default false
             */
            explain?: boolean;
        };
        /**
         * SelectResponse
         * @description The names to send, and how they were chosen: ``full`` carries the reason.
         */
        SelectResponse: {
            /** Names */
            names: string[];
            /**
             * Mode
             * @enum {string}
             */
            mode: "narrowed" | "passthrough" | "full";
            /**
             * Reason
             * @description Why the full roster was sent; on a narrowed selection, partly_indexed when it binds tools that have no vector yet (unranked); null otherwise
             */
            reason: string | null;
            /**
             * Unranked
             * @description Tools bound because they have no vector to rank them by yet (reason partly_indexed): they are being indexed, and are ranked once they are
             */
            unranked: string[];
            /** Schema Tokens */
            schema_tokens: number | null;
            /** Roster Tokens */
            roster_tokens: number | null;
            /**
             * Explain
             * @description With explain: true, why: mode, reason, k, core, chosen, ranked (name, rank, score, signals, bound, anchor, best_match), cut (k, last_in, first_out, margin), gate (language, catalog_languages, sparse_weight, lexical_weight, decision), steps (milliseconds by step), companions
             * @default null
             */
            explain?: {
                [key: string]: unknown;
            } | null;
        };
        /**
         * ToolWarning
         * @description A tool kept despite a problem its author must fix: ``thin_description``, or
         *     ``invalid_schema`` (an input schema model providers refuse, at ``pointer``).
         */
        ToolWarning: {
            /** Tool */
            tool: string;
            /** Kind */
            kind: string;
            /** Message */
            message: string;
            /**
             * Pointer
             * @description Where in the tool's input schema (a JSON pointer; invalid_schema)
             * @default null
             */
            pointer?: string | null;
        };
        Error: {
            /** @description A stable code (unknown_catalog, ...) */
            error: string;
            /** @description What went wrong and what to do */
            detail: string;
            /** @description The request field (or header) at fault */
            field?: string;
            errors?: {
                field?: string;
                detail?: string;
            }[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
