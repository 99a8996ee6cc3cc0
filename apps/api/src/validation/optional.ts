import { ValidateIf } from 'class-validator';

/**
 * An optional field: absent is fine, `null` is not. class-validator's `@IsOptional()` also waves
 * `null` through, which would accept `"args": null` although the contract's field is an array
 * (and is not nullable), and then echo the null back against the contract.
 */
export function OptionalNotNull(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}
