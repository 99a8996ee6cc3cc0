import { parseLabelSelector } from '@wrs/domain';
import { contractValidator } from '@wrs/testing';
import fc from 'fast-check';

/** `GET /runs?label=` takes exactly the filters the contract's LabelSelector pattern describes. */
describe("label filters agree with the contract's LabelSelector", () => {
  const contractAccepts = (selector: string): boolean => {
    try {
      contractValidator().assertSchema('LabelSelector', selector);
      return true;
    } catch {
      return false;
    }
  };
  const part = fc.oneof(
    fc.constantFrom('team', 'ml', '', 'a', 'A.b_c-9', 'example.com/team', 'k8s.io/x', 'Ex.com/x', 'a..b/x', '/x', 'a/', '-x', 'x.', 'a=b'),
    fc.constantFrom(`${'a'.repeat(253)}/x`, `${'a'.repeat(254)}/x`, 'a'.repeat(63), 'a'.repeat(64)),
    fc.string({ maxLength: 4 }),
  );
  const selector = fc.oneof(
    fc.tuple(part, part).map(([key, value]) => `${key}=${value}`),
    part,
  );

  it('accepts and refuses the same filters', () => {
    fc.assert(
      fc.property(selector, (candidate) => {
        expect(parseLabelSelector(candidate) !== null).toBe(contractAccepts(candidate));
      }),
      { numRuns: 3000 },
    );
  });

  it('accepts the forms the contract shows', () => {
    for (const candidate of ['team=ml', 'example.com/tier=', `${'a'.repeat(253)}/${'b'.repeat(63)}=${'c'.repeat(63)}`]) {
      expect({ candidate, api: parseLabelSelector(candidate) !== null, contract: contractAccepts(candidate) }).toEqual({
        candidate,
        api: true,
        contract: true,
      });
    }
  });
});
