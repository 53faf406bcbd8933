// The official TypeScript SDK client (the one most desktop and IDE clients are built on)
// driving `dsl serve`: list tools, scrape a page, a sync run with progress and log
// notifications, an error path, resources/list. Prints one JSON summary; exits 1 on a failure.
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
  await client.connect(transport());
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

  // the SDK checks structuredContent against the tool's outputSchema, errors included
  const failed = await client.callTool({ name: "run_task_template", arguments: { templateId: "nope" } });
  summary.error = { isError: failed.isError ?? false, ...failed.structuredContent };

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
