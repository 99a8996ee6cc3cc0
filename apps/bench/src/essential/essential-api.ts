import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { jetstream } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';
import { EssentialNames, PREVIOUS_EVENT_HEADER } from './essential-names';
import { answer, essentialRead, RUN_PATH } from './essential-read';
import { tokenCheck } from './essential-token';

/**
 * The essential program's create: `POST /api/v1/runs` on node:http. The token check, the JSON body,
 * then the two JetStream appends the api makes (RunCommandBus.claimIdempotencyKey and
 * RunEventStore.append of `run.created`: the claim as its subject's first message, the event with its
 * message id, expected last subject sequence 0 and previous-event header), and a 201 with the run.
 * Also its read, `GET /api/v1/runs/{id}` (essential-read.ts), on `pool`.
 */
export function essentialApi(nc: NatsConnection, pool: Pool, names: EssentialNames, publicKeyFile: string): Server {
  const js = jetstream(nc);
  const check = tokenCheck(publicKeyFile);
  const read = essentialRead(pool, names);
  return createServer((req, res) => {
    const runId = req.method === 'GET' ? RUN_PATH.exec(req.url ?? '')?.[1] : undefined;
    if (runId) {
      void (async () => {
        const workspaceId = await check(req);
        if (!workspaceId) {
          answer(res, 401, { type: 'unauthenticated' });
          return;
        }
        await read(res, workspaceId, runId);
      })().catch((error: unknown) => answer(res, 500, { type: 'internal', detail: String(error) }));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/api/v1/runs') {
      answer(res, 404, { type: 'not_found' });
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const workspaceId = await check(req);
        if (!workspaceId) {
          answer(res, 401, { type: 'unauthenticated' });
          return;
        }
        const text = Buffer.concat(chunks).toString('utf8');
        const body = JSON.parse(text) as { workload?: { image?: unknown }; provider?: string; region?: string };
        const idempotencyKey = req.headers['idempotency-key'];
        if (typeof body.workload?.image !== 'string' || typeof idempotencyKey !== 'string') {
          answer(res, 400, { type: 'invalid_request' });
          return;
        }
        const runId = randomUUID();
        const at = new Date().toISOString();
        const keyHash = createHash('sha256').update(idempotencyKey).digest('hex');
        const fingerprint = createHash('sha256').update(text).digest('hex');
        await js.publish(names.claim(workspaceId, keyHash), JSON.stringify({ runId, fingerprint, createdAt: at }), {
          expect: { lastSubjectSequence: 0 },
        });
        const run = { runId, workspaceId, workload: body.workload, provider: body.provider, region: body.region, idempotencyKey, at };
        const meta = headers();
        meta.set(PREVIOUS_EVENT_HEADER, '0');
        await js.publish(
          names.runEvents(workspaceId, runId),
          JSON.stringify({ type: 'run.created', runId, workspaceId, time: at, data: run }),
          { msgID: `${runId}:0`, expect: { lastSubjectSequence: 0 }, headers: meta },
        );
        answer(res, 201, {
          id: runId,
          workspaceId,
          state: 'queued',
          workload: body.workload,
          provider: body.provider,
          region: body.region,
          createdAt: at,
        });
      })().catch((error: unknown) => answer(res, 500, { type: 'internal', detail: String(error) }));
    });
  });
}
