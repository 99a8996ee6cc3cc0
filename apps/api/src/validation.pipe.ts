import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { ProblemError } from '@wrs/problem';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';
import { objectFieldsOf } from './validation/body-shape';

/**
 * class-validator on request bodies, failing as a `validation_failed` problem that lists each field.
 * The body is checked before class-transformer sees any of it: a member the DTO does not declare is
 * refused by name (`constructor`, `__proto__`, ... included), nested DTOs are built field by field,
 * maps of user-chosen keys are copied into prototype-less objects, and only primitives and arrays of
 * primitives reach plainToInstance (an object where a string belongs is assigned as it is, and its
 * rule refuses it). The body reader has already bounded depth and size.
 */
@Injectable()
export class BodyValidationPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const type = metadata.type === 'body' ? metadata.metatype : undefined;
    if (!type || type === Object) {
      return value;
    }
    if (!isPlainObject(value)) {
      throw new ProblemError('validation_failed', { detail: 'the request body must be a JSON object' });
    }
    const unknown: FieldError[] = [];
    const instance = toInstance(type as new () => object, value, '', unknown);
    unknown.push(...unstorableText(value, ''));
    if (unknown.length > 0) {
      throw new ProblemError('validation_failed', { params: { errors: unknown } });
    }
    const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true });
    if (errors.length > 0) {
      throw new ProblemError('validation_failed', { params: { errors: flatten(errors) } });
    }
    return instance;
  }
}

function toInstance(type: new () => object, value: Record<string, unknown>, prefix: string, unknown: FieldError[]): object {
  const declared = declaredProperties(type);
  const objectFields = objectFieldsOf(type);
  const simple: Record<string, unknown> = {};
  const assigned: [string, unknown][] = [];
  for (const [key, member] of Object.entries(value)) {
    const field = objectFields.get(key);
    if (!declared.has(key)) {
      unknown.push({ field: `${prefix}${key}`, message: `property ${key} should not exist` });
    } else if (field?.kind === 'map') {
      assigned.push([key, isPlainObject(member) ? userKeyedCopy(member, `${prefix}${key}.`, unknown) : member]);
    } else if (field?.kind === 'nested' && isPlainObject(member)) {
      assigned.push([key, toInstance(field.type(), member, `${prefix}${key}.`, unknown)]);
    } else if (isPrimitive(member) || (Array.isArray(member) && member.every(isPrimitive))) {
      simple[key] = member;
    } else {
      assigned.push([key, member]); // the wrong shape for this field: its rule will say so
    }
  }
  const instance = plainToInstance(type, simple) as Record<string, unknown>;
  for (const [key, member] of assigned) {
    Object.defineProperty(instance, key, { value: member, enumerable: true, writable: true, configurable: true });
  }
  return instance;
}

/**
 * Every key kept as data, in an object with no prototype; `__proto__` alone is refused by name: too
 * many ordinary object operations (Object.assign, a `for in` copy) would turn it into a prototype
 * change further along, and no environment variable needs that name.
 */
function userKeyedCopy(map: Record<string, unknown>, prefix: string, refused: FieldError[]): Record<string, unknown> {
  const copy = Object.create(null) as Record<string, unknown>;
  for (const [key, member] of Object.entries(map)) {
    if (key === '__proto__') {
      refused.push({ field: `${prefix}${key}`, message: `the key ${key} is not allowed` });
    } else {
      Object.defineProperty(copy, key, { value: member, enumerable: true, writable: true, configurable: true });
    }
  }
  return copy;
}

/**
 * U+0000 and unpaired surrogates are valid in JSON text but cannot be stored: Postgres refuses them in
 * jsonb and text. A run whose workload held one was accepted (201), then its every event failed the
 * projection forever (redelivered, never acked): the run stayed queued, never listed nor dispatched,
 * and each such message held one of the projection consumer's max_ack_pending slots, which all
 * workspaces share. So every string and key of a body is checked here, each offender named.
 */
function unstorableText(value: unknown, prefix: string): FieldError[] {
  if (typeof value === 'string') {
    return UNSTORABLE.test(value) ? [{ field: prefix.slice(0, -1), message: `the value ${UNSTORABLE_MESSAGE}` }] : [];
  }
  if (typeof value !== 'object' || value === null) {
    return [];
  }
  // The body reader has bounded the depth (JSON_MAX_DEPTH): this recursion cannot overflow.
  return Object.entries(value).flatMap(([key, member]) => [
    ...(UNSTORABLE.test(key) ? [{ field: `${prefix}${key}`, message: `the key ${UNSTORABLE_MESSAGE}` }] : []),
    ...unstorableText(member, `${prefix}${key}.`),
  ]);
}

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_MESSAGE = 'must not contain U+0000 or an unpaired surrogate';

/** The properties class-validator has rules for: the DTO's declared members. */
function declaredProperties(type: new () => object): Set<string> {
  return new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(type, '', true, false)
      .map((m) => m.propertyName),
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPrimitive(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}

interface FieldError {
  field: string;
  message: string;
  /** The bound that was crossed, when the rule has one (a length, a count, a range end). */
  limit?: number;
}

function flatten(errors: ValidationError[], prefix = ''): FieldError[] {
  return errors.flatMap((e) => {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    const own = Object.entries(e.constraints ?? {}).map(([rule, message]) => {
      const limit = (e.contexts?.[rule] as { limit?: number } | undefined)?.limit;
      return limit === undefined ? { field, message } : { field, message, limit };
    });
    return [...own, ...flatten(e.children ?? [], field)];
  });
}
