import fc from 'fast-check';
import type { ArgumentMetadata } from '@nestjs/common';
import { contractValidator } from '@wrs/testing';
import { CreateRunDto } from './runs/create-run.dto';
import { BodyValidationPipe } from './validation.pipe';

/**
 * The request DTO is checked against the contract: for thousands of bodies, valid and nearly valid,
 * class-validator accepts a body exactly when the contract's CreateRunRequest schema does.
 */
describe("CreateRunDto agrees with the contract's CreateRunRequest", () => {
  const pipe = new BodyValidationPipe();
  const metadata: ArgumentMetadata = { type: 'body', metatype: CreateRunDto };
  const dtoAccepts = (body: unknown): boolean => {
    try {
      pipe.transform(structuredClone(body), metadata);
      return true;
    } catch {
      return false;
    }
  };
  const contractAccepts = (body: unknown): boolean => {
    try {
      contractValidator().assertSchema('CreateRunRequest', body);
      return true;
    } catch {
      return false;
    }
  };

  const name = fc.oneof(fc.constantFrom('auto', 'simulator', 'local-1', 'a', 'Upper', '-x', '', 'a'.repeat(64)), fc.string());
  const envKey = fc.oneof(fc.constantFrom('A', '_x', 'SIM_EXIT_CODE', '1BAD', 'has space', ''), fc.string({ maxLength: 5 }));
  const labelKey = fc.oneof(
    fc.constantFrom(
      'team',
      'a',
      'A.b_c-9',
      'example.com/team',
      'k8s.io/x',
      `${'a'.repeat(253)}/x`,
      `${'a'.repeat(254)}/x`,
      'a'.repeat(63),
      'a'.repeat(64),
    ),
    fc.constantFrom('-x', 'x-', '_x', 'Ex.com/x', 'a..b/x', '/x', 'a/', 'a/b/c', 'has space', '', 'constructor', '__proto__'),
    fc.string({ maxLength: 5 }),
  );
  const labelValue = fc.oneof(
    fc.constantFrom('ml', '', 'v1.2_3-x', 'a'.repeat(63), 'a'.repeat(64), '-x', 'x.', 'a/b'),
    fc.string({ maxLength: 4 }),
    fc.integer(),
  );
  const labels = fc.oneof(
    fc.dictionary(labelKey, labelValue, { maxKeys: 3 }),
    fc.dictionary(fc.stringMatching(/^[a-z]{1,3}$/), fc.constant('v'), { minKeys: 15, maxKeys: 18 }),
    fc.constant([]),
    fc.constant(null),
  );
  const workload = fc.record(
    {
      image: fc.oneof(fc.constantFrom('busybox', 'ghcr.io/a/b:1.0', 'x@sha256:ab', '', ' bad', '-x', 'a'.repeat(513)), fc.string()),
      command: fc.oneof(
        fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
        fc.constant('ls'),
        fc.array(fc.integer(), { maxLength: 2 }),
        fc.constant(null),
      ),
      args: fc.oneof(fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), { maxLength: 3 }), fc.constant(null)),
      env: fc.oneof(
        fc.dictionary(envKey, fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), { maxKeys: 3 }),
        fc.constant([]),
        fc.constant(null),
      ),
      timeoutSeconds: fc.oneof(fc.integer({ min: -2, max: 90000 }), fc.double(), fc.constant('10'), fc.constant(null)),
      resources: fc.oneof(
        fc.record(
          {
            cpu: fc.oneof(
              fc.constantFrom('500m', '2', '0', '0m', '1.5', '1000000m', '1000', 'm', ' 1'),
              fc.string({ maxLength: 4 }),
              fc.integer(),
            ),
            memory: fc.oneof(fc.constantFrom('256Mi', '1Gi', '512', '0Mi', '1MB', '1000000Ki'), fc.string({ maxLength: 4 }), fc.integer()),
            gpu: fc.constant('1'),
          },
          { requiredKeys: [] },
        ),
        fc.constant(null),
        fc.constant([]),
        fc.string({ maxLength: 3 }),
      ),
      labels,
      extra: fc.string(),
    },
    { requiredKeys: [] },
  );
  const body = fc.record(
    {
      workload: fc.oneof(workload, fc.constant(null), fc.string(), fc.constant([])),
      provider: fc.oneof(name, fc.integer()),
      region: fc.oneof(name, fc.constant(null)),
      priority: fc.integer(),
    },
    { requiredKeys: [] },
  );

  it('accepts and refuses the same bodies', () => {
    fc.assert(
      fc.property(fc.oneof(body, fc.anything()), (candidate) => {
        expect(dtoAccepts(candidate)).toBe(contractAccepts(candidate));
      }),
      { numRuns: 5000 },
    );
  });

  it('accepts and refuses the same labels (the rest of the body valid, so labels decide)', () => {
    fc.assert(
      fc.property(labels, (candidate) => {
        const body = { workload: { image: 'busybox', labels: candidate }, provider: 'auto', region: 'auto' };
        expect(dtoAccepts(body)).toBe(contractAccepts(body));
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses null for every optional field, as the contract does (no field is nullable)', () => {
    for (const field of ['command', 'args', 'env', 'timeoutSeconds', 'resources', 'labels']) {
      const body = { workload: { image: 'busybox:1.36', [field]: null }, provider: 'auto', region: 'auto' };
      expect({ field, dto: dtoAccepts(body), contract: contractAccepts(body) }).toEqual({ field, dto: false, contract: false });
    }
  });

  it('accepts a full valid body (the generator reaches the valid side too)', () => {
    const valid = {
      workload: {
        image: 'busybox:1.36',
        command: ['sh'],
        args: ['-c', 'echo'],
        env: { A: '1' },
        timeoutSeconds: 60,
        resources: { cpu: '500m', memory: '256Mi' },
        labels: { team: 'ml', 'example.com/tier': '', constructor: 'x' },
      },
      provider: 'auto',
      region: 'auto',
    };
    expect(dtoAccepts(valid)).toBe(true);
    expect(contractAccepts(valid)).toBe(true);
  });
});
