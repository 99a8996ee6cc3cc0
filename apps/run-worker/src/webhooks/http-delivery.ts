import { Agent, request } from 'node:https';
import { guardedLookup, literalTargetRefused, TargetRefusedError } from './target-guard';

export interface HttpDeliverySettings {
  /** Loopback, link-local and private targets are refused unless this is set (an operator's choice). */
  readonly allowPrivateTargets: boolean;
  /** The whole attempt, connection to last byte read. */
  readonly timeoutMs: number;
  /** The most of an answer's body that is read; the rest is cut off. */
  readonly maxResponseBytes: number;
  /** Extra trusted CAs (PEM), for tests; production trusts the system's. */
  readonly ca?: string | undefined;
}

export type AttemptOutcome =
  | { readonly ok: true; readonly status: number }
  | {
      readonly ok: false;
      readonly status: number | null;
      readonly error: 'status' | 'redirect' | 'timeout' | 'refused_target' | 'connection';
    };

/**
 * One POST of a delivery. A 2xx answer is a success; a redirect is a failure and is never followed;
 * the attempt is bounded in time and in the bytes it reads, so a slow or endless answer costs little.
 */
export class HttpDelivery {
  private readonly agent: Agent;

  constructor(private readonly settings: HttpDeliverySettings) {
    this.agent = new Agent({
      keepAlive: false,
      lookup: guardedLookup(settings.allowPrivateTargets),
      ...(settings.ca ? { ca: settings.ca } : {}),
    });
  }

  post(target: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome> {
    const url = new URL(target);
    if (url.protocol !== 'https:' || literalTargetRefused(url, this.settings.allowPrivateTargets)) {
      return Promise.resolve({ ok: false, status: null, error: 'refused_target' });
    }
    return new Promise((resolve) => {
      let settled = false;
      const finish = (outcome: AttemptOutcome): void => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          req.destroy();
          resolve(outcome);
        }
      };
      const req = request(
        url,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': 'workload-run-service-webhooks/1',
          },
        },
        (res) => {
          const status = res.statusCode ?? 0;
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > this.settings.maxResponseBytes) {
              finish(outcomeOf(status));
            }
          });
          res.on('end', () => finish(outcomeOf(status)));
          res.on('error', () => finish(outcomeOf(status)));
        },
      );
      const timer = setTimeout(() => finish({ ok: false, status: null, error: 'timeout' }), this.settings.timeoutMs);
      req.on('error', (error) => finish({ ok: false, status: null, error: refusedTarget(error) ? 'refused_target' : 'connection' }));
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

function outcomeOf(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) {
    return { ok: true, status };
  }
  return { ok: false, status, error: status >= 300 && status < 400 ? 'redirect' : 'status' };
}

/** The guard's refusal, however the socket passes it on. */
function refusedTarget(error: unknown): boolean {
  return error instanceof TargetRefusedError || (error as { code?: unknown }).code === 'WEBHOOK_TARGET_REFUSED';
}
