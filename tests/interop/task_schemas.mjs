// Validates answers against the published MCP Tasks schemas (@modelcontextprotocol/ext-tasks):
// reads a JSON array of [schemaName, value] on stdin, prints a JSON array of the problems
// (null where the value conforms). Names: the packages' exports, e.g. "v1.CreateTaskResultV1Schema".
import * as v1 from "@modelcontextprotocol/ext-tasks/core/v1";
import * as v2 from "@modelcontextprotocol/ext-tasks/core/v2";

const lines = [];
for await (const chunk of process.stdin) lines.push(chunk);
const cases = JSON.parse(Buffer.concat(lines).toString("utf8"));
const schemas = { v1, v2 };
const out = cases.map(([name, value]) => {
  const [line, key] = name.split(".");
  const schema = schemas[line]?.[key];
  if (!schema) return `no schema ${name}`;
  const parsed = schema.safeParse(value);
  return parsed.success ? null : JSON.stringify(parsed.error.issues);
});
process.stdout.write(JSON.stringify(out));
