// A tiny A2A 1.0 client over JSON-RPC, as the a2a-lab tutorial writes it (docs/tutorials/client-javascript.md).
// Node 18+, no dependencies: the built-in fetch.
//
// Usage: node my-client.mjs CARD_URL [TEXT]

import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";

const HEADERS = { "Content-Type": "application/json", "A2A-Version": "1.0" };
const STOPPED = ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"];
const INTERRUPTED = ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"];

// Where to send: the first interface the card lists that this client speaks (spec §8.3.2).
function pickInterface(card) {
  const found = (card.supportedInterfaces ?? []).find(
    (i) => i.protocolBinding === "JSONRPC" && i.protocolVersion === "1.0",
  );
  if (!found) throw new Error("the card offers no JSON-RPC 1.0 interface");
  return found;
}

// One JSON-RPC request; its result, or an Error carrying the A2A error.
async function call(iface, method, params) {
  if (iface.tenant) params = { ...params, tenant: iface.tenant };
  const request = { jsonrpc: "2.0", id: randomUUID(), method, params };
  const response = await fetch(iface.url, { method: "POST", headers: HEADERS, body: JSON.stringify(request) });
  const body = await response.json();
  if (body.error) throw Object.assign(new Error(JSON.stringify(body.error)), { a2a: body.error });
  return body.result;
}

const textOf = (parts) => (parts ?? []).filter((p) => "text" in p).map((p) => p.text).join(" ");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const cardUrl = process.argv[2];
  const text = process.argv[3] ?? process.env.A2A_LAB_MESSAGE ?? "hello";
  let answer;
  try {
    const card = await (await fetch(cardUrl)).json();
    const iface = pickInterface(card);
    const message = { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }] };
    const result = await call(iface, "SendMessage", { message });
    if (result.message) {
      answer = { kind: "message", text: textOf(result.message.parts) };
    } else {
      let task = result.task;
      // follow the task up until it stops, politely and boundedly
      for (let i = 0; i < 30 && ![...STOPPED, ...INTERRUPTED].includes(task.status.state); i++) {
        await sleep(200);
        task = await call(iface, "GetTask", { id: task.id });
      }
      const parts = (task.artifacts ?? []).flatMap((a) => a.parts);
      const text = textOf(parts.length ? parts : task.status.message?.parts);
      answer = { kind: "task", state: task.status.state, text };
    }
  } catch (error) {
    answer = { kind: "error", text: String(error.message) };
    if (error.a2a?.code !== undefined) answer.error = { code: error.a2a.code };
  }
  console.log(answer.state ?? answer.kind, answer.text);
  // what the client understood, for a2a-lab to compare with the wire
  if (process.env.A2A_LAB_RESULT) writeFileSync(process.env.A2A_LAB_RESULT, JSON.stringify(answer));
  process.exitCode = answer.kind === "error" ? 1 : 0;
}

await main();
