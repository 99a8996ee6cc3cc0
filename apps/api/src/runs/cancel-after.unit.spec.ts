import { ProblemError } from '@wrs/problem';
import { cancelAfterSeconds, MAX_CANCEL_AFTER_SECONDS } from './cancel-after';

describe('Cancel-After', () => {
  it('reads seconds and h/m/s durations', () => {
    expect(cancelAfterSeconds(undefined)).toBeUndefined();
    expect(cancelAfterSeconds('90')).toBe(90);
    expect(cancelAfterSeconds('90s')).toBe(90);
    expect(cancelAfterSeconds('5m')).toBe(300);
    expect(cancelAfterSeconds('1h30m15s')).toBe(5415);
    expect(cancelAfterSeconds('168h')).toBe(MAX_CANCEL_AFTER_SECONDS);
  });

  it.each(['', '0', '0s', 'h', '1d', '-5', '1.5m', '5m1h', `${MAX_CANCEL_AFTER_SECONDS + 1}`, '99999999999999999999'])(
    'refuses %p with a 400 naming the header',
    (value) => {
      try {
        cancelAfterSeconds(value);
        throw new Error('accepted');
      } catch (error) {
        expect(error).toBeInstanceOf(ProblemError);
        expect((error as ProblemError).options.params).toMatchObject({ errors: [{ field: 'Cancel-After' }] });
      }
    },
  );
});
