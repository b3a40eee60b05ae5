// What the pytest side passes the node tests: where the service is, and what to register.
import { readFileSync, writeFileSync } from "node:fs";

import { type CatalogRegistration, ToolretClient, defineCatalog } from "../src/index.js";

export function env(name: string): string {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set: run these tests through pytest`);
  return value;
}

export function readJson<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(env(name), "utf8")) as T;
}

export function writeJson(name: string, value: unknown): void {
  writeFileSync(env(name), JSON.stringify(value));
}

export const registration = (): CatalogRegistration => readJson<CatalogRegistration>("TOOLRET_REGISTRATION");

export const crm = () => defineCatalog("crm", registration());

export function client(options: { url?: string; token?: string; timeoutMs?: number } = {}): ToolretClient {
  return new ToolretClient({
    url: options.url ?? env("TOOLRET_URL"),
    token: options.token ?? process.env.TOOLRET_TOKEN,
    timeoutMs: options.timeoutMs ?? 60_000,
  });
}
