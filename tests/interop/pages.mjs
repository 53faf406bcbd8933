// The official TypeScript SDK client reading long answers to their end with cursors, as an
// agent would: a batch of N pages (its items page by page through get_task_run), and one long
// page (scrape, its content page by page). Each answer is checked by the SDK against the tool's
// outputSchema. Prints one JSON summary; exits 1 on a failure.
//
//   node pages.mjs DSL SITE_URL N     (TASKPLATE_* from the environment; SITE_URL serves
//                                      /article.html and /large?n=)

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [dsl, site, count] = process.argv.slice(2);
const client = new Client({ name: "taskplate-pages", version: "1.0.0" });
const summary = { longestText: 0 };

async function call(name, args) {
  const answer = await client.callTool({ name, arguments: args }, undefined, { timeout: 180_000 });
  const text = answer.content.find((c) => c.type === "text").text;
  summary.longestText = Math.max(summary.longestText, text.length);
  if (answer.isError) throw new Error(`${name}: ${text}`);
  return answer.structuredContent;
}

try {
  await client.connect(
    new StdioClientTransport({ command: dsl, args: ["serve"], env: process.env, stderr: "ignore" }),
  );
  const urls = Array.from({ length: Number(count) }, (_, n) => `${site}/article.html?n=${n}`);
  const run = await call("run_task_template", {
    templateId: "batch_extract_pages",
    inputs: { urls, engine: "http" },
    options: { mode: "sync" },
  });
  const items = [...run.result.items];
  let page = run.resultPage;
  summary.batch = { status: run.status, firstPage: page?.returned ?? items.length, pages: 1 };
  summary.batch.summary = run.result.summary;
  while (page?.nextCursor) {
    const more = await call("get_task_run", { runId: run.runId, cursor: page.nextCursor });
    items.push(...more.result.items);
    page = more.resultPage;
    summary.batch.pages += 1;
  }
  summary.batch.urls = items.map((item) => item.url);
  summary.batch.total = page?.total ?? items.length;

  const long = { url: `${site}/large?n=2000`, format: "html", onlyMainContent: false };
  const first = await call("scrape", long);
  const parts = [first.content];
  page = first.page;
  summary.long = { pages: 1, total: page?.total ?? first.content.length };
  while (page?.nextCursor) {
    const more = await call("scrape", { cursor: page.nextCursor });
    parts.push(more.content);
    page = more.page;
    summary.long.pages += 1;
  }
  const whole = parts.join("");
  summary.long.length = whole.length;
  summary.long.ends = whole.includes("Paragraph 1999:");
  await client.close();
  console.log(JSON.stringify(summary));
} catch (error) {
  console.log(JSON.stringify({ ...summary, failure: String(error?.stack ?? error) }));
  await client.close().catch(() => {});
  process.exit(1);
}
