import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contractDocument } from '@wrs/contracts';
import { PROBLEM_CODES, PROBLEMS, problemTypeUri } from './catalogue';

describe('problem catalogue', () => {
  const schemas = contractDocument().components['schemas'] as Record<string, { enum?: string[] }>;

  it("lists exactly the codes of the contract's ProblemCode enum", () => {
    expect([...PROBLEM_CODES].sort()).toEqual([...(schemas['ProblemCode']?.enum ?? [])].sort());
  });

  it('gives 409 distinct codes: idempotency conflict and in-flight, version and approval conflicts', () => {
    const conflicts = PROBLEM_CODES.filter((c) => PROBLEMS[c].status === 409).sort();
    expect(conflicts).toEqual(['approval_conflict', 'idempotency_conflict', 'idempotency_in_flight', 'version_conflict']);
  });

  it('marks 5xx, 429 and the in-flight 409 retryable, and nothing else', () => {
    for (const code of PROBLEM_CODES) {
      const status: number = PROBLEMS[code].status;
      // 408: the client may repeat the request (RFC 9110 15.5.9), it was only too slow.
      const expected = status >= 500 || status === 429 || status === 408 || code === 'idempotency_in_flight';
      expect([code, PROBLEMS[code].retryable]).toEqual([code, expected]);
    }
  });

  it('gives every code a stable type URI', () => {
    expect(problemTypeUri('run_not_found')).toBe('urn:workload-run-service:problem:run_not_found');
  });

  it("is what docs/api.md's table of codes says: each code once, with its status and whether to retry", () => {
    const rows = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'api.md'), 'utf8')
      .split('\n')
      .filter((line) => /^\| `[a-z_]+`/.test(line))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    const documented = rows.flatMap(([, codes = '', status = '', retry = '']) =>
      [...codes.matchAll(/`([a-z_]+)`/g)]
        .map((m) => m[1]!)
        .map((code) => ({ code, status: Number(status), retryable: retry.startsWith('yes') })),
    );
    expect(documented.map((d) => d.code).sort()).toEqual([...PROBLEM_CODES].sort());
    for (const d of documented) {
      const problem = PROBLEMS[d.code as keyof typeof PROBLEMS];
      expect(d).toEqual({ code: d.code, status: problem.status, retryable: problem.retryable });
    }
  });
});
