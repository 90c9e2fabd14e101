// A client written the way @a2a-js/sdk 1.3.0 users write one, driven by a2a-lab's handshake.
//
//   node --preserve-symlinks-main CACHE/js/js_client.mjs CARD_URL     (tests/peers/install.sh links it there)
//   node --preserve-symlinks-main CACHE/js/js_client.mjs --loop       (the loop handshake: one scenario a line)
//
// It builds a ClientFactory over the SDK's JSON-RPC and HTTP+JSON transports with the v0.3 compatibility layer
// on (`legacyCompat: {enabled: true}` on the card resolver and both transport factories, so that 0.3 agents are
// reachable too), creates the client from the card URL, sends A2A_LAB_MESSAGE with `sendMessage` (blocking, the
// SDK's default) and, when the answer is a task still running, polls `getTask` a bounded number of times.
// Of A2A_LAB_ACTION it acts on `token` (an Authorization header through per-call serviceParameters, as the SDK's
// CLI sample does) and `follow_up` (a second message on the task's taskId and contextId). It writes no
// A2A_LAB_RESULT: its verdict comes from the wire.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Role, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';

const POLLS = 20;
const POLL_GAP_MS = 250;
const STOPPING = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

const texts = (parts) => (parts ?? []).filter((p) => p.content?.$case === 'text').map((p) => p.content.value);

function describe(task) {
  const said = (task.artifacts ?? []).flatMap((a) => texts(a.parts));
  if (task.status?.message) said.push(...texts(task.status.message.parts));
  return { kind: 'task', task_id: task.id, state: TaskState[task.status?.state], text: said.join(' ') };
}

function userMessage(text, task) {
  return {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text } }],
    ...(task ? { taskId: task.id, contextId: task.contextId } : {}),
  };
}

async function send(client, message, options) {
  const answer = await client.sendMessage({ message }, options);
  if ('messageId' in answer) return { kind: 'message', text: texts(answer.parts).join(' ') };
  let task = answer;
  for (let i = 0; i < POLLS && !STOPPING.has(task.status?.state); i++) {
    await new Promise((resolve) => setTimeout(resolve, POLL_GAP_MS));
    task = await client.getTask({ id: task.id }, options);
  }
  return task;
}

// One scenario, as one process runs it: CARD_URL and the handshake's variables in `env`; the exit code.
async function scenario(cardUrl, env) {
  if (!cardUrl || !cardUrl.includes('://')) {
    console.error('usage: node js_client.mjs CARD_URL | --loop');
    return 2;
  }
  const text = env.A2A_LAB_MESSAGE ?? 'Hello';
  const action = JSON.parse(env.A2A_LAB_ACTION || '{}');
  const options = action.token ? { serviceParameters: { Authorization: `Bearer ${action.token}` } } : undefined;

  const legacyCompat = { enabled: true };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ legacyCompat }), new RestTransportFactory({ legacyCompat })],
      cardResolver: new DefaultAgentCardResolver({ legacyCompat }),
    }),
  );
  const client = await factory.createFromUrl(cardUrl, ''); // the full card URL, as the SDK documents
  const said = [];
  const answer = await send(client, userMessage(text), options);
  said.push(answer.kind === 'message' ? answer : describe(answer));
  if (action.follow_up && answer.kind !== 'message') {
    const second = await send(client, userMessage(action.follow_up, answer), options);
    said.push(second.kind === 'message' ? second : describe(second));
  }
  for (const line of said) console.log(JSON.stringify(line));
  return 0;
}

// What a process that failed prints before exiting 1.
function failed(error) {
  const said = String(error?.message ?? error).split(/\s+/).join(' ');
  console.error(`error: ${error?.name ?? 'Error'}: ${said.slice(0, 400)}`);
  return 1;
}

// The loop handshake (docs/reference/handshake.md): one JSON line of handshake variables per scenario on stdin, each
// run as a process would run it (the line's variables are the environment meanwhile), answered `a2a-lab: done N`.
// Node reads NODE_EXTRA_CA_CERTS once, at its start: a scenario that hands the client a CA of its own (tls/*) runs
// in a process of its own, started for it with the scenario's environment, as without --loop.
async function loop() {
  const started = { ...process.env };
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    const variables = JSON.parse(line);
    let code;
    if ('A2A_LAB_CA_FILE' in variables || 'NODE_EXTRA_CA_CERTS' in variables) {
      const argv = [...process.execArgv, process.argv[1], variables.A2A_LAB_CARD_URL];
      const child = spawnSync(process.execPath, argv, {
        env: { ...started, ...variables },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      code = child.status ?? 1;
    } else {
      for (const name of Object.keys(process.env)) delete process.env[name];
      Object.assign(process.env, started, variables);
      code = await scenario(variables.A2A_LAB_CARD_URL, process.env).catch(failed);
    }
    process.stdout.write(`a2a-lab: done ${code}\n`);
  }
  return 0;
}

const looping = process.argv.at(-1) === '--loop';
(looping ? loop() : scenario(process.argv.at(-1), process.env)).then(
  (code) => process.exit(code),
  (error) => process.exit(failed(error)),
);
