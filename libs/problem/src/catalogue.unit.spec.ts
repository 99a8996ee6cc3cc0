import { contractDocument } from '@wrs/contracts';
import { PROBLEM_CODES, PROBLEMS, problemTypeUri } from './catalogue';

describe('problem catalogue', () => {
  const schemas = contractDocument().components['schemas'] as Record<string, { enum?: string[] }>;

  it('lists exactly the codes of the contract\'s ProblemCode enum', () => {
    expect([...PROBLEM_CODES].sort()).toEqual([...(schemas['ProblemCode']?.enum ?? [])].sort());
  });

  it('gives 409 three distinct codes: idempotency, version and approval conflicts', () => {
    const conflicts = PROBLEM_CODES.filter((c) => PROBLEMS[c].status === 409).sort();
    expect(conflicts).toEqual(['approval_conflict', 'idempotency_conflict', 'version_conflict']);
  });

  it('marks only 5xx codes (and none of the 4xx but 429) as retryable', () => {
    for (const code of PROBLEM_CODES) {
      const status: number = PROBLEMS[code].status;
      expect([code, PROBLEMS[code].retryable]).toEqual([code, status >= 500 || status === 429]);
    }
  });

  it('gives every code a stable type URI', () => {
    expect(problemTypeUri('run_not_found')).toBe('urn:workload-run-service:problem:run_not_found');
  });
});
