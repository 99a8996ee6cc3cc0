import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ValidateNested } from 'class-validator';

/** How the body pipe treats a field that holds an object: a nested DTO, or a map of user-chosen keys. */
export type ObjectField = { readonly kind: 'nested'; readonly type: () => new () => object } | { readonly kind: 'map' };

const SHAPE = Symbol('wrs:body-shape');

function record(target: object, property: string | symbol, field: ObjectField): void {
  const own = (Reflect.getOwnMetadata(SHAPE, target.constructor) as Map<string, ObjectField> | undefined) ?? new Map<string, ObjectField>();
  own.set(String(property), field);
  Reflect.defineMetadata(SHAPE, own, target.constructor);
}

/** A nested DTO: validated as one, and built by the body pipe itself (see validation.pipe.ts). */
export function NestedDto(type: () => new () => object): PropertyDecorator {
  return (target, property) => {
    ValidateNested()(target, property);
    Type(type)(target, property);
    record(target, property, { kind: 'nested', type });
  };
}

/**
 * A map with user-chosen keys (workload `env`). It skips class-transformer, which mishandles keys like
 * `constructor` (a 500 or a dropped key), and is kept prototype-less so every key is data.
 */
export function UserKeyedMap(): PropertyDecorator {
  return (target, property) => record(target, property, { kind: 'map' });
}

export function objectFieldsOf(type: new () => object): ReadonlyMap<string, ObjectField> {
  return (Reflect.getMetadata(SHAPE, type) as Map<string, ObjectField> | undefined) ?? new Map();
}
