import { Injectable, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { ProblemError } from '@wrs/problem';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, ValidationTypes, type ValidationError } from 'class-validator';
import { objectFieldsOf } from './validation/body-shape';

/**
 * Validates request bodies with class-validator and fails as `validation_failed`, listing each field.
 * The body is checked before class-transformer: undeclared members (`__proto__` included) are refused
 * by name and only primitives reach plainToInstance. Depth and size are bounded by the body reader.
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
      throw new ProblemError('validation_failed', { params: { errors: firstPerField(unknown) } });
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
 * Keeps every key as data in a prototype-less object. `__proto__` alone is refused by name: ordinary
 * copies (Object.assign, `for in`) would turn it into a prototype change later.
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
 * Postgres refuses U+0000 and unpaired surrogates in jsonb and text, though JSON allows them. Such a run
 * was once accepted and then stuck the shared projection consumer forever, so every string and key is
 * checked here and each offender named.
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

/** A member both undeclared and holding a NUL in its name is named once, as undeclared. */
function firstPerField(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => !seen.has(e.field) && seen.add(e.field));
}

interface FieldError {
  field: string;
  message: string;
  /** The bound that was crossed, when the rule has one (a length, a count, a range end). */
  limit?: number;
}

/**
 * One error per field: the first rule it fails in the order the DTO declares them (for `image`: a string,
 * then its length, then its form), so a missing image is "image must be a string" alone rather than that
 * and every bound a non-string also fails. A field that fails a rule of its own is not looked into: its
 * members (a nested object's, an array's items) are not reported beside it.
 */
function flatten(errors: ValidationError[], prefix = ''): FieldError[] {
  return errors.flatMap((e) => {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    const rule = firstFailedRule(e);
    if (rule === undefined) {
      return flatten(e.children ?? [], field);
    }
    const message = e.constraints![rule]!;
    const limit = (e.contexts?.[rule] as { limit?: number } | undefined)?.limit;
    return [limit === undefined ? { field, message } : { field, message, limit }];
  });
}

/**
 * class-validator records each failed rule of a property (its `constraints`), all of them: `@IsString()`
 * over `@MinLength(1)` over `@Matches(...)` gave a missing image three or four errors. Its decorators are
 * applied bottom-up, so the property's rules are registered in the reverse of their order in the source;
 * the first declared is the last registered. A rule the DTO does not declare (an array item's nested
 * check) comes after those it does.
 */
function firstFailedRule(error: ValidationError): string | undefined {
  const failed = Object.keys(error.constraints ?? {});
  if (failed.length <= 1) {
    return failed[0];
  }
  const declared = declaredRules(error.target?.constructor, error.property);
  // A value of the wrong type (or an item of the wrong type or kind) is named before a bound it also
  // crosses, whatever the DTO's order: 300 numbers as `args` are "must be a string", not "at most 256".
  const rank = (rule: string): number => {
    const index = declared.indexOf(rule);
    return (TYPE_RULES.has(rule) ? 0 : 1_000) + (index === -1 ? declared.length : index);
  };
  return failed.reduce((first, rule) => (rank(rule) < rank(first) ? rule : first));
}

/** class-validator's names of the rules that say what a value (or each item) must be, not how big or of what form. */
const TYPE_RULES = new Set([
  'isDefined',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
  'isIn',
  'isEnum',
  'nestedValidation',
]);

/** A property's rules by the names class-validator gives their failures, in the order the source declares them. */
function declaredRules(type: unknown, property: string): string[] {
  if (typeof type !== 'function') {
    return [];
  }
  const storage = getMetadataStorage();
  return storage
    .getTargetValidationMetadatas(type, '', true, false)
    .filter((m) => m.propertyName === property)
    .map((m) =>
      m.type === ValidationTypes.CUSTOM_VALIDATION ? (storage.getTargetValidatorConstraints(m.constraintCls)[0]?.name ?? m.type) : m.type,
    )
    .reverse();
}
