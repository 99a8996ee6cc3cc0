import { createHash } from 'node:crypto';
import type { RequestOne as RequestOneClass } from '@nats-io/nats-core/lib/request';

type RequestOne = RequestOneClass;

/**
 * nats-core 3.4's RequestOne as measured, by the SHA-256 of each method's source with runs of white space
 * made one space: `resolver` settles the request's promise and then calls `cancel()`, whose rejection
 * then builds an Error nothing can receive. Any other code, even one more line, leaves the library as it is.
 */
const MEASURED: Record<'resolver' | 'cancel', string> = {
  resolver: '072279f7dcde318bbdba906e92ec892211a4194bd0bdb35b5be66781be02bdc9',
  cancel: '45a62aaef2a4303d3e3cf34043b4291affcbf115ba8616014cd889680e5023c0',
};

const settled = new WeakSet<RequestOne>();
let applied: boolean | undefined;

/**
 * nats-core ends every answered request with `cancel()`, which rejects the already resolved promise with a
 * new RequestError: an Error and its stack trace per JetStream publish or API call, for nothing (6.6-11 µs,
 * a fifth to a half of the client's CPU per publish in labs, docs/performance.md). This skips that Error
 * for a request that has its answer; any other end (time-out, send failure, closed connection) is the
 * library's own. Applied only to the code it was measured on, else left off: true when applied.
 */
export function skipErrorOnSettledRequests(): boolean {
  applied ??= patch();
  return applied;
}

function patch(): boolean {
  const proto = measuredPrototype();
  if (!proto) {
    return false;
  }
  const { resolver, cancel } = proto;
  proto.resolver = function (this: RequestOne, err: Error | null, msg: Parameters<RequestOne['resolver']>[1]): void {
    settled.add(this);
    resolver.call(this, err, msg);
  };
  proto.cancel = function (this: RequestOne, err?: Error): void {
    if (err === undefined && settled.has(this)) {
      // What the library's cancel does besides the rejection a settled promise ignores.
      this.timer?.cancel();
      this.mux.cancel(this);
      return;
    }
    cancel.call(this, err);
  };
  return true;
}

/** RequestOne's prototype if the installed nats-core is the code measured; undefined otherwise. */
function measuredPrototype(): RequestOne | undefined {
  try {
    // The package's "./internal" entry point, which this repository's type resolution (node10) cannot name.
    const proto = (require('@nats-io/nats-core/internal') as { RequestOne: typeof RequestOneClass }).RequestOne.prototype;
    const matches = (method: keyof typeof MEASURED): boolean =>
      typeof proto[method] === 'function' &&
      createHash('sha256').update(proto[method].toString().replace(/\s+/g, ' ')).digest('hex') === MEASURED[method];
    return matches('resolver') && matches('cancel') ? proto : undefined;
  } catch {
    // An upgrade that no longer exports RequestOne: the library as it is.
    return undefined;
  }
}
