/**
 * A catalog's tool names, read from its registration the way toolret builds the catalog, so a
 * selection that falls open can answer every tool without asking the service. OpenAI and
 * Anthropic tools keep their names (built-in tools are skipped); an MCP tool is `server__tool`,
 * made valid for model APIs (`[A-Za-z0-9_-]`, at most 64 characters, a long name cut with a
 * short hash of the full one). A test checks the names against the service's own.
 */

import { createHash } from "node:crypto";

import { CatalogError } from "./errors.js";
import type { Catalog, CatalogOptions, CatalogRegistration } from "./types.js";

const SEPARATOR = "__";
const MAX_NAME_LENGTH = 64;
const HASH_LENGTH = 8;
const CATALOG_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The catalog `registration` describes, to register as `name` and to select from. */
export function defineCatalog(name: string, registration: CatalogRegistration): Catalog {
  if (!CATALOG_NAME.test(name)) {
    throw new CatalogError(
      "a catalog name is 1-128 letters, digits, '_', '.' or '-', starting with a letter or digit",
      "name",
    );
  }
  const tools = toolsOf(registration);
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) throw new CatalogError(`two tools are named ${JSON.stringify(tool.name)}`, tool.where);
    names.add(tool.name);
  }
  const aliases = aliasesOf(tools);
  const coreNames = new Set(
    (registration.core ?? []).map((given) => {
      const resolved = names.has(given) ? given : aliases.get(given);
      if (resolved === undefined) throw new CatalogError(`core tool ${JSON.stringify(given)} is not in the catalog`, "core");
      return resolved;
    }),
  );
  const core = [...names].filter((name) => coreNames.has(name)); // in catalog order
  return Object.freeze({ name, names: Object.freeze([...names]), core: Object.freeze(core), registration });
}

/**
 * The catalog of OpenAI function tools made from a framework's own definitions, with `options`
 * (its fields given as `undefined` left out).
 */
export function catalogOfFunctions(name: string, tools: readonly object[], options: CatalogOptions): Catalog {
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  return defineCatalog(name, { ...given, format: "openai", tools });
}

/** The catalog name of an MCP tool: `server__tool`, made valid for model APIs. */
export function mcpToolName(server: string, tool: string): string {
  const raw = `${server}${SEPARATOR}${tool}`;
  const name = raw.replace(/[^A-Za-z0-9_-]/g, "_");
  if (name.length <= MAX_NAME_LENGTH) return name;
  const digest = createHash("sha256").update(raw, "utf8").digest("hex").slice(0, HASH_LENGTH);
  return `${name.slice(0, MAX_NAME_LENGTH - HASH_LENGTH - 1)}_${digest}`;
}

interface Named {
  name: string;
  where: string;
  server?: string;
  original?: string;
}

function toolsOf(registration: CatalogRegistration): Named[] {
  const format = registration.format;
  if (format === "mcp") {
    if (!isObject(registration.servers)) throw new CatalogError("format mcp needs 'servers'", "servers");
    return Object.entries(registration.servers).flatMap(([server, listing]) =>
      listed(server, listing).map((tool, index) => {
        const where = `servers.${server}.tools[${index}]`;
        const original = nameOf(tool, where);
        return { name: mcpToolName(server, original), where, server, original };
      }),
    );
  }
  if (format !== "openai" && format !== "anthropic") {
    throw new CatalogError("format is openai, anthropic or mcp", "format");
  }
  if (!Array.isArray(registration.tools)) throw new CatalogError(`format ${format} needs 'tools'`, "tools");
  return registration.tools.flatMap((tool, index) => {
    const where = `tools[${index}]`;
    if (!isObject(tool)) throw new CatalogError(`${where} is not a tool object`, where);
    const kind = tool.type;
    if (format === "openai") {
      if (kind !== "function") return []; // a built-in tool, skipped as toolret skips it
      return [{ name: nameOf(isObject(tool.function) ? tool.function : tool, where), where }];
    }
    if (kind !== undefined && kind !== null && kind !== "custom") return [];
    return [{ name: nameOf(tool, where), where }];
  });
}

function listed(server: string, listing: unknown): unknown[] {
  let value = listing;
  if (isObject(value)) value = "result" in value ? value.result : value;
  const tools = Array.isArray(value) ? value : isObject(value) ? value.tools : undefined;
  if (!Array.isArray(tools)) throw new CatalogError(`MCP server ${JSON.stringify(server)}: expected a tools/list result or a list of tools`, `servers.${server}`);
  return tools;
}

function aliasesOf(tools: Named[]): Map<string, string> {
  const aliases = new Map<string, string>();
  const byBare = new Map<string, string[]>();
  for (const tool of tools) {
    if (tool.server === undefined || tool.original === undefined) continue;
    aliases.set(`${tool.server}${SEPARATOR}${tool.original}`, tool.name);
    byBare.set(tool.original, [...(byBare.get(tool.original) ?? []), tool.name]);
  }
  for (const [bare, names] of byBare) if (names.length === 1 && !aliases.has(bare)) aliases.set(bare, names[0]!);
  return aliases;
}

function nameOf(tool: unknown, where: string): string {
  const name = isObject(tool) ? tool.name : undefined;
  if (typeof name !== "string" || !name) throw new CatalogError(`${where} has no name`, where);
  return name;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
