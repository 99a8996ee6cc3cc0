import type { ValueTransformer } from 'typeorm';

/** JetStream sequences fit in a JS number (2^53); pg returns bigint as a string. */
export const bigintAsNumber: ValueTransformer = {
  to: (value: number) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};
