// The strict local model server (tests/support/fake_llm.py), driven over its control endpoint:
// script the next answer of an endpoint, and read what was sent and what was refused.
import { env } from "./env.js";

export const MESSAGES = "/v1/messages";
export const CHAT = "/v1/chat/completions";
export const RESPONSES = "/v1/responses";

export interface Sent {
  requests: { path: string; body: Record<string, unknown> }[];
  rejections: { path: string; message: string }[];
}

export const fakeUrl = () => env("FAKE_LLM_URL");

export async function script(path: string, answer: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${fakeUrl()}/_fake/reply`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ path, ...answer }),
  });
  if (!response.ok) throw new Error(`scripting ${path} failed: ${response.status}`);
}

export async function sent(): Promise<Sent> {
  return (await (await fetch(`${fakeUrl()}/_fake/requests`)).json()) as Sent;
}

/** What was sent and refused from now on. */
export async function mark(): Promise<() => Promise<Sent>> {
  const before = await sent();
  return async () => {
    const now = await sent();
    return {
      requests: now.requests.slice(before.requests.length),
      rejections: now.rejections.slice(before.rejections.length),
    };
  };
}

/** The names of a request's tools (any provider's shape). */
export function toolNames(body: Record<string, unknown>): string[] {
  const tools = (body.tools ?? []) as { name?: string; function?: { name: string } }[];
  return tools.map((tool) => tool.function?.name ?? tool.name ?? "");
}
