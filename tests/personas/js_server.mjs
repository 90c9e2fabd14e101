// The real @a2a-js/sdk 1.3.0 server the persona `personas/a2a-js-1.3` reproduces, written the way the SDK's
// compat-v1-server sample writes one: one DefaultRequestHandler over an in-memory task store, behind express
// with the SDK's agentCardHandler, jsonRpcHandler (at /) and restHandler (at /rest), each with
// `legacyCompat: {enabled: true}` so that 0.3 clients reach it too.
//
//   node --preserve-symlinks-main CACHE/js/js_server.mjs     (tests/peers/install.sh links it there)
//
// It listens on 127.0.0.1, port 0, and prints `port N` on stdout once every route is mounted; it stops on
// SIGTERM or when stdin closes. The agent answers every message with a task: SUBMITTED (with the user's message
// as history), WORKING, one artifact `echo: <text>` (id and name `result`), COMPLETED.
import express from 'express';
import { AGENT_CARD_PATH, Role, TaskState } from '@a2a-js/sdk';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const now = () => new Date().toISOString();
const textOf = (message) =>
  (message?.parts ?? [])
    .filter((p) => p.content?.$case === 'text')
    .map((p) => p.content.value)
    .join(' ');

const echoAgent = {
  async execute(context, bus) {
    const { taskId, contextId, userMessage } = context;
    const status = (state) => ({ state, message: undefined, timestamp: now() });
    bus.publish({
      kind: 'task',
      data: {
        id: taskId,
        contextId,
        status: status(TaskState.TASK_STATE_SUBMITTED),
        artifacts: [],
        history: [userMessage],
        metadata: undefined,
      },
    });
    const update = (state) => ({
      kind: 'statusUpdate',
      data: { taskId, contextId, status: status(state), metadata: undefined },
    });
    bus.publish(update(TaskState.TASK_STATE_WORKING));
    bus.publish({
      kind: 'artifactUpdate',
      data: {
        taskId,
        contextId,
        artifact: {
          artifactId: 'result',
          name: 'result',
          description: '',
          parts: [
            { content: { $case: 'text', value: `echo: ${textOf(userMessage)}` }, metadata: undefined, filename: '', mediaType: '' },
          ],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      },
    });
    bus.publish(update(TaskState.TASK_STATE_COMPLETED));
    bus.finished();
  },
  async cancelTask() {
    throw new Error('the echo agent finishes before anyone could cancel it');
  },
};

function card(base) {
  const iface = (path, binding, version) => ({
    url: `${base}${path}`,
    protocolBinding: binding,
    tenant: '',
    protocolVersion: version,
  });
  return {
    name: 'js-echo',
    description: '@a2a-js/sdk 1.3.0 echo agent',
    supportedInterfaces: [
      iface('/', 'JSONRPC', '1.0'),
      iface('/rest', 'HTTP+JSON', '1.0'),
      iface('/', 'JSONRPC', '0.3'),
      iface('/rest', 'HTTP+JSON', '0.3'),
    ],
    version: '0.0.1',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'echo', description: 'echoes text', tags: ['echo'] }],
  };
}

const app = express();
const server = app.listen(0, '127.0.0.1', () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const requestHandler = new DefaultRequestHandler(card(base), new InMemoryTaskStore(), echoAgent);
  const legacyCompat = { enabled: true };
  const userBuilder = UserBuilder.noAuthentication;
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }));
  app.use('/rest', restHandler({ requestHandler, userBuilder, legacyCompat }));
  app.use('/', jsonRpcHandler({ requestHandler, userBuilder, legacyCompat }));
  process.stdout.write(`port ${server.address().port}\n`);
});
server.on('error', (err) => {
  console.error(`js_server: cannot listen: ${err.message}`);
  process.exit(1);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
