import type { RunProvider } from './provider';

export class ProviderRegistry {
  private readonly byName: ReadonlyMap<string, RunProvider>;

  constructor(providers: readonly RunProvider[]) {
    this.byName = new Map(providers.map((p) => [p.name, p]));
  }

  get(name: string): RunProvider | undefined {
    return this.byName.get(name);
  }
}
