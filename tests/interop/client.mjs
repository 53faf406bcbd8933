// The official TypeScript SDK client (the one most desktop and IDE clients are built on)
// driving `dsl serve`: list tools, scrape a page, a sync run with progress and log
// notifications, an error path, every other tool once, resources/list. PAGE_URL's site must
// also serve /form.html. Prints one JSON summary; exits 1 on a failure.
//
//   node client.mjs stdio DSL PAGE_URL     (TASKPLATE_* from the environment)
//   node client.mjs http URL PAGE_URL      (TASKPLATE_TEST_TOKEN: the bearer token, if any)

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [mode, target, pageUrl] = process.argv.slice(2);

function transport() {
  if (mode === "stdio") {
    return new StdioClientTransport({ command: target, args: ["serve"], env: process.env, stderr: "ignore" });
  }
  const token = process.env.TASKPLATE_TEST_TOKEN;
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  return new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers } });
}

const client = new Client({ name: "taskplate-interop", version: "1.0.0" });
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (note) => {
  logs.push(note.params);
});

const summary = {};
try {
  const link = transport();
  await client.connect(link);
  // What came over the wire, in order, before the SDK dispatches it: the SDK runs a progress
  // handler a tick late and drops a notification that arrives in one read with its answer
  // (typescript-sdk#2580), so what the server sent is checked here, what the SDK passed on below.
  const wire = [];
  const dispatch = link.onmessage;
  link.onmessage = (message, extra) => {
    if (message.method === "notifications/progress") {
      wire.push([message.params.progress, message.params.total ?? null]);
    } else if ("id" in message && !("method" in message)) {
      wire.push("answer");
    }
    dispatch(message, extra);
  };
  summary.server = client.getServerVersion();

  const { tools } = await client.listTools();
  summary.tools = tools.map((t) => t.name).sort();

  const scraped = await client.callTool({ name: "scrape", arguments: { url: pageUrl } });
  summary.scrape = { isError: scraped.isError ?? false, ...scraped.structuredContent };

  await client.setLoggingLevel("info");
  const progress = [];
  const run = await client.callTool(
    {
      name: "run_task_template",
      arguments: {
        templateId: "batch_extract_pages",
        inputs: { urls: [pageUrl, pageUrl], waitFor: 1, concurrency: 1 },
        options: { mode: "sync" },
      },
    },
    undefined,
    { onprogress: (p) => progress.push([p.progress, p.total ?? null]), timeout: 120000 },
  );
  summary.run = { isError: run.isError ?? false, status: run.structuredContent?.status };
  summary.progress = progress;
  // the progress sent before the run's answer (the last answer the wire has seen by now)
  summary.sentProgress = wire.slice(0, wire.lastIndexOf("answer")).filter((e) => e !== "answer");

  // the SDK checks structuredContent against the tool's outputSchema, errors included
  const failed = await client.callTool({ name: "run_task_template", arguments: { templateId: "nope" } });
  summary.error = { isError: failed.isError ?? false, ...failed.structuredContent };

  // every other tool once: the SDK validates each answer against the tool's outputSchema
  const call = async (name, args) => {
    const answer = await client.callTool({ name, arguments: args });
    if (answer.isError) throw new Error(`${name}: ${JSON.stringify(answer.structuredContent)}`);
    return answer.structuredContent;
  };
  const runId = run.structuredContent.runId;
  const { sessionId } = await call("create_session", {});
  const { tabId } = await call("create_tab", { sessionId, url: pageUrl });
  const shot = await call("screenshot", { sessionId });
  const tour = [
    ["get_runtime_profile", {}],
    ["list_task_templates", {}],
    ["get_task_run", { runId, includeSteps: true }],
    ["list_task_runs", { limit: 5 }],
    ["cancel_task_run", { runId }],
    ["resume_task_run", { runId }],
    ["get_artifact", { artifactId: shot.artifactId, limit: 1000 }],
    ["list_sessions", {}],
    ["navigate", { sessionId, url: pageUrl }],
    ["wait_for_stable", { sessionId, quietMs: 100, timeoutMs: 5000 }],
    ["get_page_info", { sessionId }],
    ["get_page_content", { sessionId, format: "markdown" }],
    ["snapshot", { sessionId, maxBytes: 5000 }],
    ["evaluate", { sessionId, script: "document.title" }],
    ["navigate", { sessionId, url: new URL("/form.html", pageUrl).href }],
    ["fill", { sessionId, selector: "#name", value: "Ada" }],
    ["select_option", { sessionId, selector: "#colour", value: "g" }],
    ["press", { sessionId, selector: "#keys", key: "Enter" }],
    ["click", { sessionId, selector: "#covered" }],
    ["list_tabs", { sessionId }],
    ["close_tab", { sessionId, tabId }],
    ["run_steps", { sessionId, steps: [{ id: "info", action: "get_page_info" }] }],
    ["close_session", { sessionId }],
    ["save_template", { sessionId, name: "toured_ts", overwrite: true }],
  ];
  summary.validated = ["scrape", "run_task_template", "create_session", "create_tab", "screenshot"];
  for (const [name, args] of tour) {
    await call(name, args);
    summary.validated.push(name);
  }

  const { resources } = await client.listResources();
  summary.resources = resources.map((r) => r.uri).sort();
  summary.logs = logs;
  console.log(JSON.stringify(summary));
  await client.close();
} catch (error) {
  console.log(JSON.stringify({ ...summary, failure: String(error?.stack ?? error) }));
  await client.close().catch(() => {});
  process.exit(1);
}
