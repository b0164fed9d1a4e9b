// The seed 003 loop driven by the official TypeScript MCP SDK over streamable HTTP, the way an MCP host
// drives it: AGENTS clients at once, each creating a plan of STEPS steps and then calling get_next_step and
// submit_step_result until the plan completes. Prints one JSON line: calls made, wall seconds, and each
// call's latency in milliseconds as seen by the SDK (for the p50/p99 the bench reports).
//
// argv: url agents steps. The SDK comes from tests/mcp/ts (installed by `make install`).
import { Client } from "../../tests/mcp/ts/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js";
import { StreamableHTTPClientTransport } from "../../tests/mcp/ts/node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js";

const [url, agents, steps] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const latencies = [];

async function call(client, name, args) {
  const started = performance.now();
  const result = await client.callTool({ name, arguments: args });
  latencies.push(performance.now() - started);
  if (result.isError) throw new Error(`${name}: ${result.content?.[0]?.text}`);
  return result.structuredContent;
}

async function agent() {
  const client = new Client({ name: "flightdeck-bench", version: "1.0.0" });
  // One connection per request: a kept-alive connection the server closes while idle fails the next
  // fetch with "other side closed", which the SDK does not retry.
  const requestInit = { headers: { Connection: "close" } };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  await client.listTools(); // every host does, and the SDK then checks each answer against its schema
  const planSteps = Array.from({ length: steps }, (_, i) => ({ stepType: "search", instructions: `step ${i}` }));
  const plan = await call(client, "create_research_plan", { researchQuestion: "bench", steps: planSteps });
  let transitions = 0;
  for (;;) {
    const next = await call(client, "get_next_step", { planId: plan.planId });
    if (next.status !== "started") break;
    await call(client, "submit_step_result", { stepId: next.step.stepId, resultSummary: "ok", confidence: 0.9 });
    transitions += 2;
  }
  await client.close();
  return transitions;
}

await agent(); // warm-up: connections, caches, the server's first plans
latencies.length = 0;
const started = performance.now();
const transitions = (await Promise.all(Array.from({ length: agents }, agent))).reduce((a, b) => a + b, 0);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ transitions, calls: latencies.length, seconds, latencies })}\n`);
