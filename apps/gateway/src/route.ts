/** The events path goes to the stream-relay; everything else under the base URL to the api. */
const EVENTS_PATH = /^\/api\/v1\/runs\/[^/?#]+\/events\/?(?:[?#]|$)/;

export type Upstream = 'api' | 'relay';

export function upstreamFor(url: string): Upstream {
  return EVENTS_PATH.test(url) ? 'relay' : 'api';
}
