import { WrsApiError, WrsNetworkError } from '../errors';
import { errorLine } from './render';

describe('errorLine', () => {
  it('names each refused field of a validation_failed problem, not only its title', () => {
    const error = new WrsApiError(
      400,
      'validation_failed',
      false,
      'req-1',
      'The request is not valid.',
      undefined,
      {
        errors: [
          { field: 'limit', message: 'limit must not be greater than 100', limit: 100 },
          { field: 'workload.image', message: 'image must be a container image reference' },
        ],
      },
      1,
    );
    expect(errorLine(error).split('\n')).toEqual([
      'error: 400 validation_failed: The request is not valid. (request req-1)',
      '  limit: limit must not be greater than 100',
      '  workload.image: image must be a container image reference',
    ]);
  });

  it('is one line for a problem without field errors, or with params of another shape', () => {
    expect(errorLine(new WrsApiError(404, 'run_not_found', false, 'req-2', 'The run does not exist.', undefined, undefined, 1))).toBe(
      'error: 404 run_not_found: The run does not exist. (request req-2)',
    );
    expect(
      errorLine(new WrsApiError(400, 'body_too_complex', false, 'req-3', 'Too complex.', undefined, { errors: 'x', maxDepth: 32 }, 1)),
    ).not.toContain('\n');
    expect(errorLine(new WrsNetworkError('connect ECONNREFUSED', 'req-4', 1))).toBe(
      'error: network error: connect ECONNREFUSED (request req-4)',
    );
  });
});
