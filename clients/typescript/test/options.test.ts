// The client's options are checked when it is built: a bad one throws at once, naming the option
// and what it takes, instead of every select falling open later. No service is needed.
import assert from "node:assert/strict";
import { test } from "node:test";

import { ConfigurationError, ToolretClient, ToolretError } from "../src/index.js";

const url = "http://127.0.0.1:9";

function refused(options: unknown, option: string): void {
  assert.throws(
    () => new ToolretClient(options as ConstructorParameters<typeof ToolretClient>[0]),
    (error: unknown) => {
      assert.ok(error instanceof ConfigurationError, String(error));
      assert.ok(error instanceof ToolretError);
      assert.equal(error.option, option);
      assert.match(error.message, new RegExp(`^new ToolretClient\\(\\{ ${option}`));
      return true;
    },
  );
}

test("a timeout that is not a positive number of milliseconds is refused", () => {
  for (const option of ["timeoutMs", "registerTimeoutMs"]) {
    for (const value of [Number.NaN, -1, 0, "abc", "3000", Number.POSITIVE_INFINITY, 2 ** 31, null]) {
      refused({ url, [option]: value }, option);
    }
  }
});

test("a url, token or fetch of the wrong kind is refused", () => {
  for (const value of [undefined, "", "127.0.0.1:8080", "ftp://host", 8080]) refused({ url: value }, "url");
  refused(undefined, "url");
  for (const value of [123, {}, ""]) refused({ url, token: value }, "token");
  refused({ url, fetch: "fetch" }, "fetch");
});

test("the options a user means are kept, undefined ones as unset", () => {
  const client = new ToolretClient({ url: `${url}/`, token: undefined, timeoutMs: 1.5, registerTimeoutMs: undefined });
  assert.deepEqual([client.url, client.timeoutMs, client.registerTimeoutMs], [url, 1.5, 120_000]);
  assert.equal(new ToolretClient({ url, timeoutMs: 2 ** 31 - 1 }).timeoutMs, 2 ** 31 - 1);
});
