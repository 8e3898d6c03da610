/**
 * The ceiling of the benchmark: a bare Fastify server (the app's own fastify version) answering a
 * fixed small JSON object on `POST /ceiling` (after parsing the JSON body) and `GET /ceiling`.
 * Run as a child process: `PORT=… node dist/bench/ceiling-server.js`.
 */
import Fastify from 'fastify';

/** About the size and shape of a next-rollout answer. */
const ANSWER = {
  rollout_id: '1',
  rollout_name: 'ceiling',
  priority: '1',
  start_date: '2026-01-01 00:00:00',
  version: '1.1.0',
  firmware_id: '1',
};

const app = Fastify({ logger: false });
app.post('/ceiling', () => ANSWER);
app.get('/ceiling', () => ANSWER);
await app.listen({ host: '127.0.0.1', port: Number(process.env['PORT']) });
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => void app.close().then(() => process.exit(0)));
}
