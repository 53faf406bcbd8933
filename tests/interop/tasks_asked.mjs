// The TypeScript SDK's own task support (@modelcontextprotocol/sdk, experimental.tasks, protocol
// 2025-11-25) on a task that asks its user: a `confirm` step of the template `confirmed`. The
// client's elicitation handler answers it; while the question is open the handler reads the task,
// which must be `input_required`. Every task answer is checked against the published Tasks
// schemas (@modelcontextprotocol/ext-tasks/core/v1). Prints one JSON summary; exits 1 on a failure.
//
//   node tasks_asked.mjs stdio DSL     (TASKPLATE_* from the environment)
//   node tasks_asked.mjs http URL

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { conforms, summarised, transportFrom } from "./task_common.mjs";

const RELATED_TASK = "io.modelcontextprotocol/related-task";
const transport = transportFrom(process.argv);

const client = new Client({ name: "taskplate-tasks-asked", version: "1.0.0" }, { capabilities: { elicitation: {} } });
const tasks = client.experimental.tasks;
const summary = { asked: [] };
let created;
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  const taskId = request.params._meta?.[RELATED_TASK]?.taskId;
  const task = conforms("GetTaskResultV1Schema", await tasks.getTask(taskId ?? created), "getTask while asked");
  summary.asked.push({ message: request.params.message, relatedTask: taskId, status: task.status });
  return { action: "accept", content: {} };
});

await summarised(client, summary, async () => {
  await client.connect(transport);
  const messages = [];
  const stream = tasks.callToolStream(
    { name: "run_task_template", arguments: { templateId: "confirmed", inputs: { item: "tea" } } },
    CallToolResultSchema,
    { task: { ttl: 60000 }, timeout: 120000 },
  );
  for await (const message of stream) {
    if (message.task) conforms("TaskV1Schema", message.task, message.type);
    if (message.type === "taskCreated") created = message.task.taskId;
    if (message.type === "result") conforms("CallToolResultV1Schema", message.result, "result");
    messages.push(message);
  }
  const last = messages.at(-1);
  summary.taskId = created;
  summary.kinds = messages.map((m) => (m.type === "taskStatus" ? `taskStatus:${m.task.status}` : m.type));
  summary.last = last.type;
  summary.error = last.error?.message;
  summary.structured = last.result?.structuredContent;
  summary.related = last.result?._meta?.[RELATED_TASK];
  summary.got = conforms("GetTaskResultV1Schema", await tasks.getTask(created), "getTask after").status;
});
