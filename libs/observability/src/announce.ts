/** The line a service prints once it listens: where its HTTP and operator ports ended up. */
export interface Addresses {
  /** The HTTP port's URL (api, stream-relay, gateway). */
  readonly url?: string | undefined;
  /** The operator port's URL (health and metrics), when it has one. */
  readonly opsUrl?: string | undefined;
}

/**
 * Printed whatever LOG_LEVEL says, in the logger's JSON shape: a service started on port 0 (the local
 * stack, the tests) is found through this line, so a port is never picked free and then lost to
 * another process before the service binds it.
 */
export function announceListening(service: string, addresses: Addresses): void {
  const line = { level: 'info', time: new Date().toISOString(), service, msg: 'listening', ...addresses };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** Reads an announcement back from one line of a service's output; undefined for any other line. */
export function parseAnnouncement(line: string): Addresses | undefined {
  if (!line.startsWith('{') || !line.includes('"listening"')) {
    return undefined;
  }
  try {
    const parsed = JSON.parse(line) as Record<string, unknown>;
    if (parsed['msg'] !== 'listening') {
      return undefined;
    }
    const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
    return { url: text(parsed['url']), opsUrl: text(parsed['opsUrl']) };
  } catch {
    return undefined;
  }
}
