import type { EngineContainer, EngineEvent } from '@wrs/testing';
import type { Observed, Verdict } from './checker';
import type { InjectedFault } from './nemesis';

/** What the engine recorded during a `containers` chaos run, and what it still holds after it. */
export interface EngineRecord {
  readonly events: readonly EngineEvent[];
  readonly left: readonly EngineContainer[];
}

/** The ms granularity of an event's `at` (an ISO time truncated to the ms) against the engine's ns clock. */
const AT_GRANULARITY_MS = 1;

/**
 * Verdicts of the `containers` profile: what the engine itself saw (creations, starts, deaths) against
 * each run's events in JetStream. Times compared are of one machine's clock (engine and worker).
 */
export function checkContainers(observed: Observed, engine: EngineRecord, injected: readonly InjectedFault[]): Verdict[] {
  const verdicts: Verdict[] = [];
  const verdict = (name: string, checked: number, violations: string[]): void => {
    verdicts.push({ name, ok: violations.length === 0, checked, violations: violations.slice(0, 50) });
  };
  const byRun = new Map<string, EngineEvent[]>();
  for (const e of engine.events) {
    byRun.set(e.runId, [...(byRun.get(e.runId) ?? []), e]);
  }
  const of = (runId: string, action: string): number[] => (byRun.get(runId) ?? []).filter((e) => e.action === action).map((e) => e.atMs);
  const iso = (ms: number): string => new Date(ms).toISOString();

  verdict(
    'no container is left on the engine once every run ended (none orphaned)',
    byRun.size,
    engine.left.map(
      (c) => `${c.runId}: container ${c.id.slice(0, 12)} ${c.state}, its run ${observed.rows.get(c.runId)?.state ?? 'unknown'}`,
    ),
  );

  const twice: string[] = [];
  for (const runId of byRun.keys()) {
    const [creates, starts] = [of(runId, 'create').length, of(runId, 'start').length];
    if (creates > 1 || starts > 1) {
      twice.push(`${runId}: ${creates} containers created, ${starts} starts`);
    }
  }
  verdict('no workload was created or started twice', byRun.size, twice);

  const early: string[] = [];
  for (const runId of byRun.keys()) {
    const creates = of(runId, 'create');
    if (creates.length === 0) {
      continue;
    }
    const first = Math.min(...creates);
    const dispatched = (observed.runs.get(runId)?.events ?? []).flatMap((e) =>
      e.event.type === 'run.dispatched' ? [Date.parse(e.event.data.at)] : [],
    );
    if (!dispatched.some((at) => at <= first)) {
      early.push(
        `${runId}: container created at ${iso(first)}; dispatch recorded ${dispatched.length ? `at ${dispatched.map(iso).join(', ')}` : 'never'}`,
      );
    }
  }
  verdict('every container was created after its run recorded its dispatch (intent before effect)', byRun.size, early);

  const unconfirmed: string[] = [];
  let canceled = 0;
  for (const run of observed.runs.values()) {
    const end = run.events.at(-1)?.event;
    if (end?.type !== 'run.canceled') {
      continue;
    }
    canceled += 1;
    const at = Date.parse(end.data.at);
    const starts = of(run.runId, 'start');
    // Stopped: it died, or was removed (Podman's forced removal of a running container may record no `die`).
    const died = [...of(run.runId, 'die'), ...of(run.runId, 'remove')];
    if (starts.some((s) => s > at)) {
      unconfirmed.push(`${run.runId}: canceled at ${end.data.at}, its container started after that`);
    } else if (starts.length > 0 && !died.some((d) => d <= at + AT_GRANULARITY_MS)) {
      unconfirmed.push(
        `${run.runId}: canceled at ${end.data.at}, its container ${died.length ? `stopped at ${died.map(iso).join(', ')}` : 'never stopped'}`,
      );
    }
  }
  verdict('a run is canceled only once its container had stopped', canceled, unconfirmed);

  const armed = injected.filter((f) => f.fault.kind === 'failpoint');
  verdict(
    'the worker reached every armed failpoint (the crash sites around submit and cancel exist)',
    armed.length,
    armed.flatMap((f) => (f.error ? [f.error] : [])),
  );
  return verdicts;
}
