// The TypeScript SDK's own task support (@modelcontextprotocol/sdk, experimental.tasks, protocol
// 2025-11-25) driving `dsl serve`: a task that succeeds, one that fails, one cancelled, the
// caller's task list. Every task answer is checked against the published Tasks schemas
// (@modelcontextprotocol/ext-tasks/core/v1). Prints one JSON summary; exits 1 on a failure.
//
//   node tasks.mjs stdio DSL     (TASKPLATE_* from the environment)
//   node tasks.mjs http URL

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { conforms, summarised, transportFrom } from "./task_common.mjs";

const transport = transportFrom(process.argv);

const client = new Client({ name: "taskplate-tasks", version: "1.0.0" });
const tasks = client.experimental.tasks;

// The messages of one task-augmented call, each task in them checked.
async function tasked(args, onCreated) {
  const messages = [];
  const stream = tasks.callToolStream(
    { name: "run_task_template", arguments: args },
    CallToolResultSchema,
    { task: { ttl: 60000 }, timeout: 120000 },
  );
  for await (const message of stream) {
    if (message.task) conforms("TaskV1Schema", message.task, message.type);
    if (message.type === "result") conforms("CallToolResultV1Schema", message.result, "result");
    messages.push(message);
    if (message.type === "taskCreated" && onCreated) await onCreated(message.task.taskId);
  }
  return messages;
}

function outcome(messages) {
  const last = messages.at(-1);
  return {
    kinds: [...new Set(messages.map((m) => m.type))],
    taskId: messages.find((m) => m.type === "taskCreated")?.task.taskId,
    last: last.type,
    status: last.result?.structuredContent?.status,
    error: last.error ? { code: last.error.code, message: last.error.message } : undefined,
  };
}

const summary = {};
await summarised(client, summary, async () => {
  await client.connect(transport);
  summary.protocol = transport.protocolVersion ?? "stdio";
  summary.capabilities = conforms(
    "ServerTaskCapabilitiesV1Schema",
    client.getServerCapabilities().tasks,
    "capabilities",
  );
  const { tools } = await client.listTools();
  summary.taskTools = tools.filter((t) => t.execution?.taskSupport === "optional").map((t) => t.name).sort();

  summary.succeeded = outcome(await tasked({ templateId: "pause", inputs: { ms: 50 } }));
  summary.got = conforms("GetTaskResultV1Schema", await tasks.getTask(summary.succeeded.taskId), "getTask");
  summary.failed = outcome(await tasked({ templateId: "pause", inputs: { ms: 2000, timeout: 100 } }));
  summary.cancelled = outcome(
    await tasked({ templateId: "pause", inputs: { ms: 30000 } }, async (taskId) => {
      summary.cancel = conforms("CancelTaskResultV1Schema", await tasks.cancelTask(taskId), "cancelTask");
    }),
  );
  const listed = conforms("ListTasksResultV1Schema", await tasks.listTasks(), "listTasks");
  summary.listed = listed.tasks.map((t) => [t.taskId, t.status]);
});
