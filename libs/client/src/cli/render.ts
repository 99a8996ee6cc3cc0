import { WrsApiError, WrsConfigurationError, WrsContractMismatchError, WrsNetworkError } from '../errors';
import type { FollowItem } from '../follow';
import type { Run, RunEvent, VersionInfo, Workspace } from '../types';
import { UsageError } from './exit-codes';
import { visible } from './visible';

/**
 * Human renderings: what a person reads, with control characters written out (a workload's command or a
 * provider's message may hold escape sequences). The --json forms are the API's own objects, one per line.
 */
export function runLines(run: Run): string[] {
  const lines = [`run ${run.id}  ${run.state}${run.terminal ? '' : ' (not finished)'}`, `  image      ${run.workload.image}`];
  if (run.workload.command?.length) {
    lines.push(`  command    ${run.workload.command.join(' ')}`);
  }
  if (run.workload.labels && Object.keys(run.workload.labels).length > 0) {
    lines.push(`  labels     ${labelsText(run.workload.labels)}`);
  }
  lines.push(`  requested  ${run.provider}/${run.region}`);
  if (run.placement) {
    lines.push(`  placed on  ${run.placement.provider}/${run.placement.region} (${run.placement.reason})`);
  }
  lines.push(`  created    ${run.createdAt}`);
  if (run.finishedAt) {
    lines.push(`  finished   ${run.finishedAt}`);
  }
  if (run.exitCode !== null) {
    lines.push(`  exit code  ${run.exitCode}`);
  }
  if (run.failure) {
    lines.push(`  failure    ${run.failure.code}: ${run.failure.message}`);
  }
  if (run.cancellation) {
    lines.push(`  canceled   by ${run.cancellation.requestedBy} at ${run.cancellation.requestedAt}`);
  }
  lines.push(`  log lines  ${run.logLines}`, `  version    ${run.version}`);
  return visibleLines(lines);
}

/** `key=value` pairs as `--label` and `label=` take them. */
export function labelsText(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
}

export function versionLines(info: VersionInfo, pinned: string): string[] {
  return visibleLines([
    `api ${info.api}, contract ${info.contractVersion}, build ${info.build.version}${info.build.commit ? ` (${info.build.commit})` : ''}`,
    `client pinned to contract ${pinned}`,
  ]);
}

export function workspaceLines(workspace: Workspace): string[] {
  return visibleLines([
    `workspace ${workspace.id} (${workspace.name}), created ${workspace.createdAt}`,
    ...Object.entries(workspace.limits).map(([name, value]) => `  ${name.padEnd(31)} ${value}`),
  ]);
}

function visibleLines(lines: string[]): string[] {
  return lines.map(visible);
}

/** One line for an event that changes the run (log lines are printed by themselves, through `visible`). */
export function describeEvent(event: RunEvent): string | undefined {
  const text = eventText(event);
  return text === undefined ? undefined : visible(text);
}

function eventText(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'run.created':
      return 'queued';
    case 'run.dispatched':
      return `starting on ${event.data.placement.provider}/${event.data.placement.region} (${event.data.placement.reason})`;
    case 'run.waiting':
      return `waiting (${event.data.reason}): ${event.data.message}`;
    case 'run.dispatch_refused':
      return `queued again: ${event.data.refusal.provider}/${event.data.refusal.region} refused it (${event.data.refusal.code}: ${event.data.refusal.message})`;
    case 'run.started':
      return 'running';
    case 'run.log':
      return undefined;
    case 'run.succeeded':
      return 'succeeded (exit 0)';
    case 'run.failed':
      return `failed: ${event.data.failure.code}: ${event.data.failure.message}${event.data.exitCode !== null ? ` (exit ${event.data.exitCode})` : ''}`;
    case 'run.cancel_requested':
      return `canceling (asked by ${event.data.requestedBy})`;
    case 'run.canceled':
      return 'canceled';
  }
}

export function itemJson(item: FollowItem): string {
  return JSON.stringify(
    item.kind === 'event' ? { kind: 'event', id: item.id, event: item.event } : { kind: 'reset', id: item.id, reset: item.reset },
  );
}

/** An error for people: status, code and the request id to quote to support. Never the token. */
export function errorLine(error: unknown): string {
  if (error instanceof WrsApiError) {
    // A refused request names what to change (validation_failed's params.errors): without these lines a
    // person saw only "The request is not valid." and had to rerun with --json to learn which field.
    return [`error: ${error.message}`, ...fieldErrorsOf(error.params).map((e) => `  ${e.field}: ${e.message}`)].map(visible).join('\n');
  }
  if (
    error instanceof WrsApiError ||
    error instanceof WrsNetworkError ||
    error instanceof WrsContractMismatchError ||
    error instanceof UsageError ||
    error instanceof WrsConfigurationError
  ) {
    return visible(`error: ${error.message}`);
  }
  return visible(`error: ${error instanceof Error ? error.message : String(error)}`);
}

function fieldErrorsOf(params: Record<string, unknown> | undefined): { field: string; message: string }[] {
  const errors = params?.['errors'];
  return Array.isArray(errors)
    ? errors.filter((e): e is { field: string; message: string } => typeof e?.field === 'string' && typeof e?.message === 'string')
    : [];
}

export function errorJson(error: unknown): string {
  if (error instanceof WrsApiError) {
    const { status, code, retryable, requestId, title, detail, params, attempts } = error;
    return JSON.stringify({ kind: 'error', status, code, retryable, requestId, title, detail, params, attempts });
  }
  if (error instanceof WrsNetworkError) {
    return JSON.stringify({
      kind: 'error',
      code: 'network_error',
      message: error.message,
      requestId: error.requestId,
      attempts: error.attempts,
    });
  }
  if (error instanceof WrsContractMismatchError) {
    return JSON.stringify({
      kind: 'error',
      code: 'contract_mismatch',
      serverVersion: error.serverVersion,
      pinnedVersion: error.pinnedVersion,
    });
  }
  return JSON.stringify({
    kind: 'error',
    code: error instanceof UsageError || error instanceof WrsConfigurationError ? 'usage' : 'client_error',
    message: error instanceof Error ? error.message : String(error),
  });
}
