import { ValidateIf } from 'class-validator';

/**
 * An optional field: absent is fine, `null` is not. `@IsOptional()` lets `null` through, which would accept
 * `"args": null` for a non-nullable contract field and echo it back.
 */
export function OptionalNotNull(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}
