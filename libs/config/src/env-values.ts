import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/** Environment values are strings: integers become numbers before validation (for @Transform). */
export const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;

/** Decimal numbers (`0.25`, `1`) become numbers before validation; anything else stays a string and fails. */
export const toNumber = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;

/** An integer variable from `min` to `max`: one decorator for the four every such variable needs. */
export function IntBetween(min: number, max: number): PropertyDecorator {
  return (target, property) => {
    // Applied in the order stacked decorators are (bottom first), so errors read as before.
    Max(max)(target, property);
    Min(min)(target, property);
    IsInt()(target, property);
    Transform(toInt)(target, property);
  };
}
