import type { RunEvent } from '@wrs/domain';

/**
 * The bytes of one event in JetStream. The same JSON is the SSE `data:` line, so the relay sends what
 * is stored without re-encoding it.
 */
export interface RunEventEnvelope {
  readonly type: RunEvent['type'];
  readonly runId: string;
  readonly workspaceId: string;
  readonly time: string;
  readonly data: RunEvent['data'];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeRunEvent(workspaceId: string, runId: string, event: RunEvent): Uint8Array {
  const envelope: RunEventEnvelope = { type: event.type, runId, workspaceId, time: event.data.at, data: event.data };
  return encoder.encode(JSON.stringify(envelope));
}

export function decodeRunEvent(bytes: Uint8Array): { envelope: RunEventEnvelope; event: RunEvent } {
  const envelope = JSON.parse(decoder.decode(bytes)) as RunEventEnvelope;
  return { envelope, event: { type: envelope.type, data: envelope.data } as RunEvent };
}
