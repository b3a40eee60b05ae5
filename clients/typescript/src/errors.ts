/**
 * One error tree, rooted at `ToolretError`:
 *
 *     ToolretError
 *     ├── ConfigurationError        an option of new ToolretClient(...) that cannot work
 *     ├── CatalogError              a registration whose tools cannot be read (defineCatalog)
 *     ├── ServiceUnavailableError   registerCatalog could not reach the service, or it failed
 *     └── ToolretApiError           the service refused the request (4xx): error, detail, field
 *         ├── InvalidRequestError   400, 413, 415, 422: the body, a field, or the catalog's JSON
 *         ├── UnauthorizedError     401: no bearer token, or one the service does not know
 *         ├── ForbiddenError        403: the token may not use that catalog
 *         └── UnknownCatalogError   404: nothing is registered under that name
 *
 * `select` and `findTools` never throw for an outage (they fall open); what the caller got wrong
 * is thrown, with the service's own code, message and field.
 */

import type { ClientReason, ErrorBody } from "./types.js";

/** Every error this package throws. */
export class ToolretError extends Error {
  override name = "ToolretError";
}

/** An option the client cannot work with: `option` names it, the message says what it takes. */
export class ConfigurationError extends ToolretError {
  override name = "ConfigurationError";
  constructor(
    message: string,
    readonly option: string,
  ) {
    super(message);
  }
}

/** A registration whose tools cannot be read: `field` is where (`tools[3]`, `core`, ...). */
export class CatalogError extends ToolretError {
  override name = "CatalogError";
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

/** The service could not be asked (`reason`), or answered `status` ≥ 500. */
export class ServiceUnavailableError extends ToolretError {
  override name = "ServiceUnavailableError";
  constructor(
    message: string,
    readonly reason: ClientReason,
    readonly status: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A request the service refused: its status, its stable code, what to do, and the field. */
export class ToolretApiError extends ToolretError {
  override name = "ToolretApiError";
  /** The stable code: `invalid_request`, `unknown_catalog`, `forbidden`, ... */
  readonly error: string;
  /** What went wrong and what to do about it. */
  readonly detail: string;
  /** The request field (or header) at fault, when the service names one. */
  readonly field: string | null;
  /** Every problem of a 422, each with its field. */
  readonly errors: NonNullable<ErrorBody["errors"]>;

  constructor(
    readonly status: number,
    body: ErrorBody,
  ) {
    super(`toolret ${status} ${body.error}: ${body.detail}`);
    this.error = body.error;
    this.detail = body.detail;
    this.field = body.field ?? null;
    this.errors = body.errors ?? [];
  }
}

/** 400, 413, 415 or 422: the body, a field of it, or the catalog's tool JSON (`field` says). */
export class InvalidRequestError extends ToolretApiError {
  override name = "InvalidRequestError";
}

/** 401: send `token` (the service's `TOOLRET_SERVE_TOKENS` lists the ones it knows). */
export class UnauthorizedError extends ToolretApiError {
  override name = "UnauthorizedError";
}

/** 403: this token may not use that catalog (or the service may not register catalogs). */
export class ForbiddenError extends ToolretApiError {
  override name = "ForbiddenError";
}

/** 404: no catalog is registered under that name: `registerCatalog` it first. */
export class UnknownCatalogError extends ToolretApiError {
  override name = "UnknownCatalogError";
}

/** The typed error of a 4xx answer. */
export function apiError(status: number, body: ErrorBody): ToolretApiError {
  if (status === 401) return new UnauthorizedError(status, body);
  if (status === 403) return new ForbiddenError(status, body);
  if (status === 404 && body.error === "unknown_catalog") return new UnknownCatalogError(status, body);
  if ([400, 413, 415, 422].includes(status)) return new InvalidRequestError(status, body);
  return new ToolretApiError(status, body);
}
