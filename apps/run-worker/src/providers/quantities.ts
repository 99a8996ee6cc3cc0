/**
 * Kubernetes quantities as the contract's Resources schema allows them (`500m` or `2` cores; `256Mi`,
 * `1Gi`, `512Ki` bytes), for providers that need numbers.
 */
export function cpuNanos(quantity: string): number {
  return quantity.endsWith('m') ? Number(quantity.slice(0, -1)) * 1_000_000 : Number(quantity) * 1_000_000_000;
}

const BINARY_UNITS: Readonly<Record<string, number>> = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 };

export function memoryBytes(quantity: string): number {
  const unit = quantity.slice(-2);
  const factor = BINARY_UNITS[unit];
  if (factor === undefined) {
    throw new Error(`not a memory quantity: ${quantity}`);
  }
  return Number(quantity.slice(0, -2)) * factor;
}
