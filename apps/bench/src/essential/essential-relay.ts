import { createServer, type Server } from 'node:http';
import { DeliverPolicy, jetstream, jetstreamManager, type JsMsg, type StoredMsg } from '@nats-io/jetstream';
import type { Msg, NatsConnection } from '@nats-io/nats-core';
import { eventIndexOf, EssentialNames, PREVIOUS_EVENT_HEADER } from './essential-names';
import { tokenCheck } from './essential-token';

const RUN_EVENTS_PATH = /^\/api\/v1\/runs\/([0-9a-f-]{36})\/events$/;

/**
 * How the essential relay gives a stream the run's events, the first one (stored before the GET) included:
 * - `stored`: a core NATS subscription on the run's subject (its later events, as they are appended),
 *   then the run's stored events: the last one by subject (`$JS.API.STREAM.MSG.GET`, the read the api
 *   makes for a version), and those before it by sequence through their previous-event header (one more
 *   read per event the run already had);
 * - `direct`: the same reads as direct gets (`$JS.API.DIRECT.GET`, the stream allows them), which the
 *   stream answers itself, without the JetStream API;
 * - `ordered`: an ordered consumer from the run's first event (one created, and deleted at the close,
 *   on the server per stream).
 * A core subscription alone is not enough: the run's first event is appended before the create answers.
 */
export const ESSENTIAL_SSE_READS = ['stored', 'direct', 'ordered'] as const;
export type EssentialSseRead = (typeof ESSENTIAL_SSE_READS)[number];

/**
 * The essential program's event stream: `GET /api/v1/runs/{id}/events` on node:http as SSE. The token
 * check, then the run's events as `read` says. An `id:`/`data:` frame per event (its index in the run:
 * its message id says it, stored or live), each once; the stream ends when the client closes.
 */
export async function essentialRelay(
  nc: NatsConnection,
  names: EssentialNames,
  publicKeyFile: string,
  read: EssentialSseRead,
): Promise<Server> {
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  const check = tokenCheck(publicKeyFile);
  const get = (query: { last_by_subj: string } | { seq: number }): Promise<StoredMsg | null> =>
    read === 'direct' ? jsm.direct.getMessage(names.eventsStream, query) : jsm.streams.getMessage(names.eventsStream, query);
  return createServer((req, res) => {
    const runId = req.method === 'GET' ? RUN_EVENTS_PATH.exec(req.url ?? '')?.[1] : undefined;
    if (!runId) {
      res.writeHead(404).end();
      return;
    }
    void (async () => {
      const workspaceId = await check(req);
      if (!workspaceId) {
        res.writeHead(401).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const subject = names.runEvents(workspaceId, runId);
      let sent = -1;
      const send = (index: number, data: string): void => {
        if (index > sent) {
          sent = index;
          res.write(`id: ${index}\ndata: ${data}\n\n`);
        }
      };
      const live = (m: Msg | JsMsg): void => send(eventIndexOf(m.headers?.get('Nats-Msg-Id')), m.string());
      if (read === 'ordered') {
        const consumer = await js.consumers.get(names.eventsStream, { filter_subjects: [subject], deliver_policy: DeliverPolicy.All });
        const messages = await consumer.consume({ callback: live });
        res.on('close', () => void messages.close());
        return;
      }
      let early: Msg[] | undefined = [];
      const sub = nc.subscribe(subject, {
        callback: (_error, m) => {
          if (early) {
            early.push(m);
          } else {
            live(m);
          }
        },
      });
      res.on('close', () => sub.unsubscribe());
      const stored: StoredMsg[] = [];
      for (
        let m = await get({ last_by_subj: subject });
        m !== null;
        m = Number(m.header.get(PREVIOUS_EVENT_HEADER)) > 0 ? await get({ seq: Number(m.header.get(PREVIOUS_EVENT_HEADER)) }) : null
      ) {
        stored.unshift(m);
      }
      stored.forEach((m) => send(eventIndexOf(m.header.get('Nats-Msg-Id')), m.string()));
      const arrived = early;
      early = undefined;
      arrived.forEach(live);
    })().catch((error: unknown) => {
      console.error(`essential relay: ${String(error)}`);
      res.destroy();
    });
  });
}
