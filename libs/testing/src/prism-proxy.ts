import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { freePort } from './free-port';
import { patience } from './patience';

/**
 * Stoplight Prism (`prism proxy --errors`) in front of a running API: an independent validator that
 * nobody here wrote. Every request is checked against the contract, forwarded, and its response
 * checked too. Prism buffers whole responses, so it can carry only answers that end (a finished
 * run's event stream, a 204), never a live stream.
 */
export interface PrismProxy {
  /** The proxy's base URL; the contract's paths go right after it (`${url}/runs`). */
  readonly url: string;
  /** Everything Prism printed so far. */
  output(): string[];
  /**
   * Ends Prism once its output is complete: Prism logs some problems after it has answered (through
   * an asynchronous logger that SIGTERM would cut short), so stop first sends one more request and
   * waits for Prism to log it, which it does only after every earlier line.
   */
  stop(): Promise<void>;
}

export interface PrismOptions {
  readonly contractFile: string;
  /** The API's base URL, with the contract's server path (`http://127.0.0.1:PORT/api/v1`). */
  readonly upstream: string;
  /**
   * false: Prism does not validate requests (body, parameters), for error cases that send a request
   * the contract forbids on purpose so that the server's answer to it is what gets checked. Prism
   * checks credentials' presence either way (its CLI hard-wires that) and answers a request without
   * one itself, so such requests cannot reach the server through it.
   */
  readonly validateRequest?: boolean;
}

const PRISM_BIN = join(dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist', 'index.js');
const LISTENING = /Prism is listening on (http:\/\/\S+)/;
const TRIES = 5;

/** Starts Prism on a free port; Prism cannot bind port 0, so a port taken meanwhile is retried with another. */
export async function startPrismProxy(options: PrismOptions): Promise<PrismProxy> {
  const failures: string[] = [];
  for (let attempt = 1; attempt <= TRIES; attempt++) {
    const outcome = await tryStart(options, await freePort());
    if ('proxy' in outcome) {
      return outcome.proxy;
    }
    failures.push(outcome.failure);
    if (!outcome.portTaken) {
      break;
    }
  }
  throw new Error(`prism did not start:\n${failures.join('\n---\n')}`);
}

type Outcome = { proxy: PrismProxy } | { failure: string; portTaken: boolean };

function tryStart(options: PrismOptions, port: number): Promise<Outcome> {
  const args = [PRISM_BIN, 'proxy', options.contractFile, options.upstream, '--errors', '-h', '127.0.0.1', '-p', String(port)];
  if (options.validateRequest === false) {
    args.push('--validate-request=false');
  }
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const limitMs = patience(20_000);
  return new Promise<Outcome>((resolve) => {
    const timer = setTimeout(() => {
      void kill(child, closed).then(() =>
        resolve({ failure: `not listening after ${limitMs} ms:\n${lines.join('\n')}`, portTaken: false }),
      );
    }, limitMs);
    const onLine = (line: string): void => {
      lines.push(line);
      const listening = LISTENING.exec(line);
      if (listening?.[1]) {
        clearTimeout(timer);
        resolve({ proxy: proxyOf(listening[1].replace(/\/$/, ''), child, lines, closed) });
      }
    };
    readLines(child, onLine);
    child.once('exit', () => {
      clearTimeout(timer);
      const text = lines.join('\n');
      resolve({ failure: `prism exited:\n${text}`, portTaken: text.includes('EADDRINUSE') });
    });
  });
}

function proxyOf(url: string, child: ChildProcess, lines: string[], closed: Promise<void>): PrismProxy {
  let stopping: Promise<void> | undefined;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      await drain(url, lines);
    }
    await kill(child, closed);
  };
  return { url, output: () => [...lines], stop: () => (stopping ??= stop()) };
}

const RECEIVED_VERSION = /get \/version\b.*Request received/;

/** Asks Prism for GET /version and waits until it has logged receiving it. */
async function drain(url: string, lines: string[]): Promise<void> {
  const seen = (): number => lines.filter((line) => RECEIVED_VERSION.test(stripAnsi(line))).length;
  const before = seen();
  await fetch(`${url}/version`).then((res) => res.arrayBuffer());
  const deadline = Date.now() + patience(10_000);
  while (seen() <= before) {
    if (Date.now() > deadline) {
      throw new Error(`prism did not log the drain request within ${patience(10_000)} ms; its output may be incomplete`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function kill(child: ChildProcess, closed: Promise<void>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
  }
  // 'close' comes after the output streams ended, so output() is complete once this resolves.
  await closed;
}

function readLines(child: ChildProcess, onLine: (line: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const parts = (rest + chunk).split('\n');
      rest = parts.pop() ?? '';
      parts.forEach(onLine);
    });
    stream?.on('end', () => rest && onLine(rest));
  }
}

/**
 * The lines of Prism's output that report a problem: a violation of any severity (`Violation: ...`,
 * logged at error, warn or info), a request Prism ended with an error of its own (no route matched,
 * invalid security, the VIOLATIONS answer of `--errors`), or any other warning (an upstream 501, a
 * restart on the original document). Prism prints through signale, whose label for warn is `warning`.
 */
export function prismProblems(lines: readonly string[]): string[] {
  return lines.filter((line) => line.includes('Violation:') || /\s(warning|error|fatal)\s{2,}/.test(stripAnsi(line)));
}

/**
 * What Prism found wrong with one exchange: the `sl-violations` header (set for violations of any
 * severity) and, with `--errors`, its own problem answer in place of the server's.
 */
export function prismViolationsOf(headers: Headers, body: unknown): string[] {
  const found: string[] = [];
  const header = headers.get('sl-violations');
  if (header) {
    found.push(`sl-violations: ${header}`);
  }
  const type = (body as { type?: unknown } | undefined)?.type;
  if (typeof type === 'string' && type.startsWith('https://stoplight.io/prism/errors#')) {
    found.push(`prism answered itself: ${JSON.stringify(body)}`);
  }
  return found;
}

function stripAnsi(line: string): string {
  return line.replace(/\u001b\[[0-9;]*m/g, '');
}
