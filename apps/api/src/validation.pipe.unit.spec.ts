import type { ArgumentMetadata } from '@nestjs/common';
import { ProblemError } from '@wrs/problem';
import { CreateProviderCredentialDto } from './provider-credentials/create-provider-credential.dto';
import { CreateRunDto } from './runs/create-run.dto';
import { BodyValidationPipe } from './validation.pipe';
import { CreateWebhookDto } from './webhooks/create-webhook.dto';

type FieldError = { field: string; message: string; limit?: number };

/** The `params.errors` of the pipe's refusal of `body` as a `type`. */
function refusal(type: ArgumentMetadata['metatype'], body: unknown): FieldError[] {
  try {
    new BodyValidationPipe().transform(body, { type: 'body', metatype: type });
  } catch (error) {
    expect(error).toBeInstanceOf(ProblemError);
    expect((error as ProblemError).code).toBe('validation_failed');
    return (error as ProblemError).options.params?.['errors'] as FieldError[];
  }
  throw new Error('the body was accepted');
}

const RUN = { workload: { image: 'busybox' }, provider: 'auto', region: 'auto' };

/**
 * One error per field: the first rule the field fails, in the order its DTO declares them. A missing
 * image was four errors for workload.image (a string, at least 1 character, at most 512, an image
 * reference), each true of a value that is not a string, and none saying more than the first.
 */
describe('the body pipe names each refused field once, by its first failed rule', () => {
  it('a run without an image: one error, "image must be a string"', () => {
    expect(refusal(CreateRunDto, { ...RUN, workload: {} })).toEqual([{ field: 'workload.image', message: 'image must be a string' }]);
  });

  it('an empty image: its length, with the limit (not also its form)', () => {
    expect(refusal(CreateRunDto, { ...RUN, workload: { image: '' } })).toEqual([
      { field: 'workload.image', message: 'image must be longer than or equal to 1 characters', limit: 1 },
    ]);
  });

  it('an image of 513 characters: its length; one with a space: its form', () => {
    expect(refusal(CreateRunDto, { ...RUN, workload: { image: 'a'.repeat(513) } })).toEqual([
      { field: 'workload.image', message: 'image must be shorter than or equal to 512 characters', limit: 512 },
    ]);
    expect(refusal(CreateRunDto, { ...RUN, workload: { image: 'a b' } })).toEqual([
      { field: 'workload.image', message: 'image must be a container image reference' },
    ]);
  });

  it('no workload: "should not be null or undefined", not also "must be an object"', () => {
    expect(refusal(CreateRunDto, { provider: 'auto', region: 'auto' })).toEqual([
      { field: 'workload', message: 'workload should not be null or undefined' },
    ]);
  });

  it('a workload that is an array: "must be an object", not also its items', () => {
    expect(refusal(CreateRunDto, { ...RUN, workload: [1, 'x'] })).toEqual([{ field: 'workload', message: 'workload must be an object' }]);
  });

  it('every stacked field of a run, each wrong in type: one error each, its type', () => {
    const errors = refusal(CreateRunDto, {
      workload: { image: 5, command: 'x', args: ['a', 5], timeoutSeconds: 'x', resources: { cpu: 5, memory: 5 } },
      provider: 5,
      region: 5,
    });
    expect(errors).toEqual([
      { field: 'workload.image', message: 'image must be a string' },
      { field: 'workload.command', message: 'command must be an array' },
      { field: 'workload.args', message: 'each value in args must be a string' },
      { field: 'workload.timeoutSeconds', message: 'timeoutSeconds must be an integer number' },
      { field: 'workload.resources.cpu', message: 'cpu must be a string' },
      { field: 'workload.resources.memory', message: 'memory must be a string' },
      { field: 'provider', message: 'provider must be a string' },
      { field: 'region', message: 'region must be a string' },
    ]);
  });

  it('bounds after the type: a timeout of 0 is "not less than 1", with its limit', () => {
    expect(refusal(CreateRunDto, { ...RUN, workload: { image: 'busybox', timeoutSeconds: 0 } })).toEqual([
      { field: 'workload.timeoutSeconds', message: 'timeoutSeconds must not be less than 1', limit: 1 },
    ]);
  });

  it('a webhook with neither a URL nor a list of events: one error each', () => {
    expect(refusal(CreateWebhookDto, { url: 5, events: 'x' })).toEqual([
      { field: 'url', message: 'url must be a string' },
      { field: 'events', message: 'events must be an array' },
    ]);
    expect(refusal(CreateWebhookDto, { url: 'http://hooks.example.com', events: ['started', 'started', 'nope'] })).toEqual([
      { field: 'url', message: 'url must be an https URL without credentials or fragment' },
      { field: 'events', message: 'each of events must be one of completed, started, logs' },
    ]);
  });

  it("an item of the wrong type is named before the array's bounds: 300 numbers as args", () => {
    expect(refusal(CreateRunDto, { ...RUN, workload: { image: 'busybox', args: Array.from({ length: 300 }, () => 5) } })).toEqual([
      { field: 'workload.args', message: 'each value in args must be a string' },
    ]);
  });

  it('a provider credential without provider or secret: one error each', () => {
    expect(refusal(CreateProviderCredentialDto, { region: 5 })).toEqual([
      { field: 'provider', message: 'provider must be a string' },
      { field: 'region', message: 'region must be a string' },
      { field: 'secret', message: 'secret must be a string' },
    ]);
  });

  it('an undeclared member whose name holds a NUL is named once, as undeclared', () => {
    expect(refusal(CreateRunDto, { ...RUN, 'x\u0000': 1 })).toEqual([{ field: 'x\u0000', message: 'property x\u0000 should not exist' }]);
  });
});
