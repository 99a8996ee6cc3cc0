// The contract's answers and requests as TypeScript types, named once for the api, the client and the
// console (`@wrs/contracts/types`). Types only: nothing here exists at run time, so a browser bundle
// and the published client can import it.
import type { components, paths } from './generated/contract';

export type { components, paths };

/** The contract's schemas, as generated from libs/contracts/openapi.yaml (`npm run client:generate`). */
type Schemas = components['schemas'];

export type RunResource = Schemas['Run'];
export type RunList = Schemas['RunList'];
export type RunState = Schemas['RunState'];
export type RunEventType = Schemas['RunEventType'];
export type RunReset = Schemas['RunReset'];
export type Workload = Schemas['Workload'];
export type Placement = Schemas['Placement'];
export type PlacementOffer = Schemas['PlacementOffer'];
export type Failure = Schemas['Failure'];
export type Waiting = Schemas['Waiting'];
export type Cancellation = Schemas['Cancellation'];
export type CreateRunRequest = Schemas['CreateRunRequest'];
export type VersionInfo = Schemas['Version'];
export type Workspace = Schemas['Workspace'];
export type WorkspaceLimits = Schemas['Limits'];
export type Session = Schemas['Session'];
export type CreateProviderCredentialRequest = Schemas['CreateProviderCredentialRequest'];
export type ProviderCredential = Schemas['ProviderCredential'];
export type WebhookEventKind = Schemas['WebhookEventKind'];
export type CreateWebhookRequest = Schemas['CreateWebhookRequest'];
export type Webhook = Schemas['Webhook'];
export type WebhookWithSecret = Schemas['WebhookWithSecret'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookDeliveryList = Schemas['WebhookDeliveryList'];
export type Problem = Schemas['Problem'];
export type ProblemCode = Schemas['ProblemCode'];

/**
 * A contract type read-only all the way down: what a server builds from its read-only domain values
 * (a `readonly string[]` is not a `string[]`). Same properties, same types, so a changed schema still fails.
 */
export type Immutable<T> = T extends (infer Item)[]
  ? readonly Immutable<Item>[]
  : T extends object
    ? { readonly [K in keyof T]: Immutable<T[K]> }
    : T;

/**
 * `U` with every property the contract type `T` lacks, at any depth, typed `never`: a `U` is assignable to it
 * only if it sends nothing `T` does not name. TypeScript checks extra properties of object literals only; this
 * checks a value built elsewhere (a domain object, a stored event) the same way. A union `T` (a nullable
 * schema, the events) takes the members `U` may be.
 */
export type Exact<T, U> = U extends readonly (infer Item)[]
  ? readonly Exact<T extends readonly (infer Of)[] ? Of : never, Item>[]
  : U extends object
    ? T extends object
      ? { readonly [K in keyof U]: K extends keyof T ? Exact<T[K], U[K]> : never }
      : never
    : U;

/** The list answers with no paging (`{ items }`), as their operations define them. */
export type ProviderCredentialList = paths['/provider-credentials']['get']['responses'][200]['content']['application/json'];
export type WebhookList = paths['/webhooks']['get']['responses'][200]['content']['application/json'];

/**
 * The generator renders each event as `RunEventEnvelope & { type?; data? }` (the contract's allOf),
 * whose `data` intersects with the envelope's open object. This takes the event's own part back out,
 * so every payload field keeps the type the contract gives it.
 */
type OwnPart<T> = T extends Schemas['RunEventEnvelope'] & infer Own ? Own : never;
type EventOf<K extends RunEventType, S> = {
  readonly type: K;
  readonly runId: string;
  readonly workspaceId: string;
  readonly time: string;
  readonly data: NonNullable<OwnPart<S> extends { data?: infer D } ? D : never>;
};

/** The `data:` of one Server-Sent Event of a run's stream, one member per event type. */
export type RunEvent =
  | EventOf<'run.created', Schemas['RunCreatedEvent']>
  | EventOf<'run.waiting', Schemas['RunWaitingEvent']>
  | EventOf<'run.dispatched', Schemas['RunDispatchedEvent']>
  | EventOf<'run.dispatch_refused', Schemas['RunDispatchRefusedEvent']>
  | EventOf<'run.started', Schemas['RunStartedEvent']>
  | EventOf<'run.log', Schemas['RunLogEvent']>
  | EventOf<'run.succeeded', Schemas['RunSucceededEvent']>
  | EventOf<'run.failed', Schemas['RunFailedEvent']>
  | EventOf<'run.cancel_requested', Schemas['RunCancelRequestedEvent']>
  | EventOf<'run.canceled', Schemas['RunCanceledEvent']>;
