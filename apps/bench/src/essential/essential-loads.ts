import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Client } from 'pg';
import { createLoad } from '../create-scenario';
import { readLoad } from '../read-scenario';
import { loadWithCpu, type HttpLoad } from '../http-load';
import { waitUntil } from '../stack-probes';
import type { EssentialNames } from './essential-names';
import { ESSENTIAL_PARTS, type EssentialProcesses } from './essential-process';
import type { EssentialLoad } from './essential-figures';

/** Which of the essential api's loads to measure (those whose scenario of ours runs), and for how long. */
export interface EssentialLoadPlan {
  readonly create: boolean;
  readonly read: boolean;
  readonly seconds: number;
}

export interface EssentialLoads {
  readonly create?: EssentialLoad;
  readonly read?: EssentialLoad;
}

/** Each load follows a warm-up of its own, as ours do (main.ts). */
const WARM_UP_SECONDS = 2;

/**
 * The essential api's POST and GET under createThroughput's and readThroughput's loads (64 connections,
 * the same body, a fresh Idempotency-Key per create, one run's id for every read), its worker running,
 * CPU per request from the essential api's process. Between the two the worker finishes the burst's
 * runs, as the bench lets ours settle before reads.
 */
export async function measureEssentialLoads(
  processes: EssentialProcesses,
  token: string,
  nc: NatsConnection,
  pg: Client,
  names: EssentialNames,
  plan: EssentialLoadPlan,
): Promise<EssentialLoads> {
  const apiPid = processes.pids.get(ESSENTIAL_PARTS.api)!;
  const create = (seconds: number): Promise<HttpLoad> => loadWithCpu(createLoad(`${processes.apiUrl}/runs`, token, seconds), apiPid);
  let created: HttpLoad | undefined;
  if (plan.create) {
    await create(WARM_UP_SECONDS);
    created = await create(plan.seconds);
    await settled(nc, pg, names);
  }
  let read: HttpLoad | undefined;
  if (plan.read) {
    const rows = await pg.query<{ id: string }>(`SELECT id FROM ${names.table} WHERE state = 'succeeded' LIMIT 1`);
    const id = rows.rows[0]?.id;
    if (!id) {
      throw new Error(`the essential table holds no run to read`);
    }
    const get = (seconds: number): Promise<HttpLoad> => loadWithCpu(readLoad(`${processes.apiUrl}/runs/${id}`, token, seconds), apiPid);
    await get(WARM_UP_SECONDS);
    read = await get(plan.seconds);
  }
  return { ...(created ? { create: summaryOf(created) } : {}), ...(read ? { read: summaryOf(read) } : {}) };
}

/**
 * Until the worker has taken every event and every run it was given has succeeded. A run it failed to
 * append for stays unfinished; after two minutes the read goes ahead anyway, said on stderr.
 */
async function settled(nc: NatsConnection, pg: Client, names: EssentialNames): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await waitUntil(async () => {
    const info = await jsm.consumers.info(names.eventsStream, names.workerConsumer());
    if (info.num_pending + info.num_ack_pending > 0) {
      return false;
    }
    const rows = await pg.query<{ n: string }>(`SELECT count(*) AS n FROM ${names.table} WHERE state <> 'succeeded'`);
    return Number(rows.rows[0]?.n) === 0;
  }, 120_000).catch(() => console.error('essential: the create burst had not settled within 120 s; its read is measured anyway'));
}

function summaryOf(load: HttpLoad): EssentialLoad {
  const { result } = load;
  return {
    rate: load.rate,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    cpuMsPerRequest: load.cpuMsPerRequest,
  };
}
