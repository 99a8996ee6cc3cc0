import { call } from '../api';
import { fill, h } from '../dom';
import type { PlacementOffer, Workspace } from '@wrs/contracts/types';

const AUTO = 'auto';

/**
 * Provider and region choices from GET /workspaces/current, each with `auto` first (the service decides)
 * where `auto` may choose some offer.
 * Regions follow the chosen provider; with `auto`, the regions of every offer `auto` may choose.
 */
export function placementSelects(onError: (error: unknown) => void): { provider: HTMLSelectElement; region: HTMLSelectElement } {
  const provider = h(
    'select',
    { id: 'provider', name: 'provider', required: true, disabled: true },
    option(AUTO, 'auto (chosen by policy)'),
  );
  const region = h('select', { id: 'region', name: 'region', required: true, disabled: true }, option(AUTO, 'auto'));
  let offers: PlacementOffer[] = [];

  const showRegions = (): void => {
    // `auto` places only on offers it may choose (an older server does not say: all of them).
    const chosen = provider.value === AUTO ? offers.filter((o) => o.auto !== false) : offers.filter((o) => o.provider === provider.value);
    const regions = [...new Set(chosen.flatMap((o) => o.regions))];
    const keep = regions.includes(region.value) ? region.value : AUTO;
    fill(region, option(AUTO, 'auto'), ...regions.map((r) => option(r, r)));
    region.value = keep;
  };
  provider.addEventListener('change', showRegions);

  call<Workspace>('GET', '/workspaces/current')
    .then(({ body }) => {
      offers = body.placements ?? [];
      const label = (o: PlacementOffer): string => (o.kind === o.provider ? o.provider : `${o.provider} (${o.kind})`);
      // `auto` only where it may choose an offer: with every offer `auto: false` the service refuses it.
      const autoChoice = offers.length === 0 || offers.some((o) => o.auto !== false) ? [option(AUTO, 'auto (chosen by policy)')] : [];
      fill(provider, ...autoChoice, ...offers.map((o) => option(o.provider, label(o))));
      showRegions();
    })
    .catch(onError)
    .finally(() => {
      // Without the list, `auto` stays the choice: the form stays usable.
      provider.disabled = false;
      region.disabled = false;
    });
  return { provider, region };
}

function option(value: string, text: string): HTMLOptionElement {
  return h('option', { value }, text);
}
