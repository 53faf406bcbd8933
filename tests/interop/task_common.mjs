// What tasks.mjs and tasks_asked.mjs share: the transport their arguments name, and the check of
// each task answer against the published Tasks schemas (@modelcontextprotocol/ext-tasks/core/v1).

import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as v1 from "@modelcontextprotocol/ext-tasks/core/v1";

// `node SCRIPT stdio DSL` starts `DSL serve` (TASKPLATE_* from the environment); `http URL`.
export function transportFrom(argv) {
  const [mode, target] = argv.slice(2);
  return mode === "stdio"
    ? new StdioClientTransport({ command: target, args: ["serve"], env: process.env, stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(target));
}

export const problems = [];

export function conforms(schema, value, what) {
  const parsed = v1[schema].safeParse(value);
  if (!parsed.success) problems.push({ what, schema, issues: parsed.error.issues });
  return value;
}

// Runs `body`, then prints the summary with any failure and the schema problems, closes the
// client and exits 1 on either.
export async function summarised(client, summary, body) {
  try {
    await body();
  } catch (error) {
    summary.failure = String(error?.stack ?? error);
  } finally {
    summary.problems = problems;
    await client.close().catch(() => {});
  }
  console.log(JSON.stringify(summary));
  process.exit(summary.failure || problems.length ? 1 : 0);
}
