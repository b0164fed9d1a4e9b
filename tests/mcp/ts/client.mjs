// The official TypeScript MCP client, driven by the Python tests one JSON line at a time.
//
// argv[2] is the connection, as JSON: {"http": {"url", "token"}} or {"stdio": {"command", "args", "env", "cwd"}}.
// Once connected it prints {"ready": {"name", "version"}} (the server's implementation info); then each
// line read is a request, {"op": "list"} or {"op": "call", "name", "arguments"}, answered by one line:
// {"ok": <the SDK's result>} or {"error": {"code", "message"}} when the SDK throws (a JSON-RPC error, or
// its own output-schema check failing).
import readline from "node:readline";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const target = JSON.parse(process.argv[2]);

function transport() {
  if (target.http) {
    // One connection per request: a kept-alive one the server closes while idle (a slow machine pauses
    // between calls) would fail the next fetch with "other side closed", which no host would retry.
    const headers = { Connection: "close" };
    if (target.http.token) headers.Authorization = `Bearer ${target.http.token}`;
    return new StreamableHTTPClientTransport(new URL(target.http.url), { requestInit: { headers } });
  }
  const { command, args, env, cwd } = target.stdio;
  return new StdioClientTransport({ command, args, env, cwd, stderr: "inherit" });
}

// A failed fetch says why only in its cause (a reset connection, a refused one ...).
function failure(error) {
  const cause = error.cause ? `: ${error.cause.code ?? ""} ${error.cause.message ?? error.cause}` : "";
  return { code: error.code ?? null, message: `${error.message ?? error}${cause}` };
}

function reply(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const client = new Client({ name: "flightdeck-tests", version: "1.0.0" });
try {
  await client.connect(transport());
} catch (error) {
  reply({ error: failure(error) });
  process.exit(1);
}
reply({ ready: client.getServerVersion() ?? null });

async function answer(request) {
  if (request.op === "list") {
    return await client.listTools();
  }
  if (request.op === "call") {
    return await client.callTool({ name: request.name, arguments: request.arguments ?? {} });
  }
  throw new Error(`unknown op ${request.op}`);
}

const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  try {
    reply({ ok: await answer(JSON.parse(line)) });
  } catch (error) {
    reply({ error: failure(error) });
  }
}
await client.close();
