// The official TypeScript SDK client reading what tools/list costs and calling a template as a
// tool of its own: the size of a default `dsl serve`'s tools/list (the JSON text of its
// tools), then of `dsl serve --template-tools`'s (its default groups and the templates as
// tools), whose batch_extract_pages is called by its own name with typed arguments (the SDK
// checks the answer against the tool's outputSchema, which types the result by the template's
// outputs) and with a wrong argument (refused by the tool's inputSchema). Prints one JSON
// summary; exits 1 on a failure.
//
//   node tools.mjs DSL PAGE_URL     (TASKPLATE_* from the environment, TASKPLATE_TOOLS unset)

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [dsl, pageUrl] = process.argv.slice(2);

async function connected(args) {
  const client = new Client({ name: "taskplate-interop-tools", version: "1.0.0" });
  const link = new StdioClientTransport({ command: dsl, args, env: process.env, stderr: "ignore" });
  await client.connect(link);
  return client;
}

const summary = {};
let client;
try {
  client = await connected(["serve"]);
  const listed = await client.listTools();
  summary.defaultTools = listed.tools.map((t) => t.name).sort();
  summary.defaultChars = JSON.stringify({ tools: listed.tools }).length;
  await client.close();

  client = await connected(["serve", "--template-tools"]);
  const { tools } = await client.listTools();
  summary.templateTools = tools.map((t) => t.name).sort();
  summary.templateToolsChars = JSON.stringify({ tools }).length;
  const tool = tools.find((t) => t.name === "batch_extract_pages");
  const result = tool.outputSchema.anyOf[0].properties.result;
  summary.templateTool = {
    required: tool.inputSchema.required,
    typed: tool.inputSchema.properties.urls.type,
    items: result.properties.items.type,
  };
  const run = await client.callTool(
    { name: "batch_extract_pages", arguments: { urls: [pageUrl], waitFor: 1, concurrency: 1 } },
    undefined,
    { timeout: 120000 },
  );
  summary.run = {
    isError: run.isError ?? false,
    status: run.structuredContent?.status,
    templateId: run.structuredContent?.templateId,
  };
  const wrong = await client.callTool({ name: "batch_extract_pages", arguments: { urls: "not a list" } });
  summary.wrong = { isError: wrong.isError ?? false, errorCode: wrong.structuredContent?.errorCode };
  console.log(JSON.stringify(summary));
  await client.close();
} catch (error) {
  console.log(JSON.stringify({ ...summary, failure: String(error?.stack ?? error) }));
  await client?.close().catch(() => {});
  process.exit(1);
}
