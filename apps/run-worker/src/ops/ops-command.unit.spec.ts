import { parseOpsCommand, UsageError } from './ops-command';

describe('ops command line', () => {
  it('reads rebuild-projection and delete-runs with their options', () => {
    expect(parseOpsCommand(['rebuild-projection'])).toEqual({ name: 'rebuild-projection' });
    expect(parseOpsCommand(['delete-runs', '--workspace', 'acme', '--finished-before', '2026-01-01T00:00:00Z'])).toEqual({
      name: 'delete-runs',
      workspaceId: 'acme',
      finishedBefore: new Date('2026-01-01T00:00:00Z'),
      dryRun: false,
    });
    expect(
      parseOpsCommand(['delete-runs', '--dry-run', '--finished-before', '2026-01-01T00:00:00+02:00', '--workspace', 'acme']),
    ).toMatchObject({
      dryRun: true,
      finishedBefore: new Date('2025-12-31T22:00:00Z'),
    });
  });

  it.each([
    [[]],
    [['rebuild-projection', '--all']],
    [['delete-runs', '--finished-before', '2026-01-01T00:00:00Z']],
    [['delete-runs', '--workspace', 'Not A Workspace', '--finished-before', '2026-01-01T00:00:00Z']],
    [['delete-runs', '--workspace', 'acme']],
    // No zone: which midnight is ambiguous, and a deletion must not guess.
    [['delete-runs', '--workspace', 'acme', '--finished-before', '2026-01-01']],
    [['delete-runs', '--workspace', 'acme', '--finished-before', 'yesterday']],
    [['delete-runs', '--workspace', 'acme', '--finished-before', '2026-01-01T00:00:00Z', '--force']],
    [['delete-runs', '--workspace']],
  ])('refuses %j with a usage error', (argv) => {
    expect(() => parseOpsCommand(argv)).toThrow(UsageError);
  });
});
