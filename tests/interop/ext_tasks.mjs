// The official Tasks requester (@modelcontextprotocol/ext-tasks on the TypeScript SDK's client)
// driving `dsl serve` on both protocol lines: a task that succeeds, one that fails, one
// cancelled, and (2026-07-28) one that asks a confirmation answered through tasks/update. The
// requester validates every task answer against its published schemas. Prints one JSON
// summary; exits 1 on a failure.
//
//   node ext_tasks.mjs (legacy|modern) (stdio DSL|http URL)

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createTaskSessionFromClient } from "@modelcontextprotocol/ext-tasks/client";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const [line, mode, target] = process.argv.slice(2);
const MODERN = "2026-07-28";
const EXTENSION = "io.modelcontextprotocol/tasks";
const clientInfo = { name: "taskplate-ext-tasks", version: "1.0.0" };
const clientCapabilities = { elicitation: {}, extensions: { [EXTENSION]: {} } };

const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: target, args: ["serve"], env: process.env, stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(target));

// 2026-07-28 task traffic goes around the SDK's codecs: the host frames each request as a
// JSON-RPC message of its own. Over HTTP, a POST each (no session: any server on the store
// answers); over stdio, a line to a `dsl serve` of its own on the same run store.
let lastId = 0;
let raw; // over stdio: the raw server process and the answers it owes, by id
function rawStdio() {
  const child = spawn(target, ["serve"], { env: process.env, stdio: ["pipe", "pipe", "ignore"] });
  const waiting = new Map();
  createInterface({ input: child.stdout }).on("line", (text) => {
    const message = JSON.parse(text);
    if ("id" in message && !("method" in message)) waiting.get(message.id)?.(message);
  });
  return { child, waiting };
}
async function rawDispatch(framed) {
  const request = { jsonrpc: "2.0", id: `raw-${++lastId}`, ...framed };
  if (mode === "stdio") {
    raw ??= rawStdio();
    const answer = await new Promise((resolve) => {
      raw.waiting.set(request.id, resolve);
      raw.child.stdin.write(`${JSON.stringify(request)}\n`);
    });
    raw.waiting.delete(request.id);
    return answer.error ? { kind: "error", error: answer.error } : { kind: "result", result: answer.result };
  }
  const response = await fetch(target, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": MODERN,
      "Mcp-Method": request.method,
      ...(request.method === "tools/call" ? { "Mcp-Name": request.params.name } : {}),
    },
    body: JSON.stringify(request),
  });
  const text = await response.text();
  const messages = response.headers.get("content-type")?.startsWith("text/event-stream")
    ? text.split("\n").filter((l) => l.startsWith("data:") && l.slice(5).trim()).map((l) => JSON.parse(l.slice(5)))
    : [JSON.parse(text)];
  const answer = messages.find((m) => m.id === request.id && !("method" in m));
  if (!answer) throw new Error(`no answer to ${JSON.stringify(request)}: ${response.status} ${text}`);
  return answer.error ? { kind: "error", error: answer.error } : { kind: "result", result: answer.result };
}

const modern = line === "modern";
const client = new Client(clientInfo, {
  capabilities: { elicitation: {} },
  ...(modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
});
const asked = [];
const summary = { line, mode };
let session;
try {
  await client.connect(transport);
  session = createTaskSessionFromClient(client, {
    endpointId: `taskplate-${line}-${mode}`,
    onInputRequest: async (request) => {
      asked.push(request.kind === "elicitation" ? request.params.message : request.kind);
      return { action: "accept" };
    },
    ...(modern
      ? { rawDispatch, v2RequestFraming: { protocolVersion: MODERN, clientInfo, clientCapabilities } }
      : {}),
  });
  const async = { mode: "async" };
  const run = async (args, onTask) => {
    const execution = await session.callTool("run_task_template", { options: async, ...args }, {
      task: { preference: "prefer" },
      requestTimeoutMs: 120000,
    });
    const taskId = execution.handle?.taskId;
    if (onTask) await onTask(execution);
    const { outcome } = await execution.settle();
    return {
      kind: execution.kind,
      taskId,
      status: outcome.status,
      run: outcome.status === "completed" ? outcome.result.structuredContent?.status : undefined,
      result: outcome.status === "completed" ? outcome.result.structuredContent?.result : undefined,
      error: outcome.status === "failed" ? outcome.error.message : undefined,
    };
  };
  summary.succeeded = await run({ templateId: "pause", inputs: { ms: 50 } });
  summary.failed = await run({ templateId: "pause", inputs: { ms: 2000, timeout: 100 } });
  summary.cancelled = await run({ templateId: "pause", inputs: { ms: 30000 } }, (e) => e.cancel());
  if (modern) {
    summary.confirmed = await run({ templateId: "confirmed", inputs: { item: "tea" } });
    summary.asked = asked;
  } else {
    summary.listed = (await session.listTasks()).tasks.map((t) => [t.taskId, t.status]);
  }
} catch (error) {
  summary.failure = `${error?.stack ?? error}${error?.cause ? ` (cause: ${error.cause.stack ?? error.cause})` : ""}`;
} finally {
  await session?.close().catch(() => {});
  await client.close().catch(() => {});
  raw?.child.stdin.end();
}
console.log(JSON.stringify(summary));
process.exit(summary.failure ? 1 : 0);
