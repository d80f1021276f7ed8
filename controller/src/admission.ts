/**
 * Admission webhooks: the AdmissionReview v1 envelope in and out, so a webhook is just a function from
 * request to verdict. Anyone who reaches the port can post a body, so the envelope is checked field by
 * field before a handler sees it: a malformed review is answered 400 with what is wrong, never 500 and
 * never a crash. A handler that throws is answered with HTTP 500, so the API server applies the
 * webhook's `failurePolicy` rather than a verdict nobody made.
 */
import { KubeObject } from './kube/api';
import { Metrics } from './metrics';

export interface AdmissionRequest {
  readonly uid: string;
  readonly kind: { readonly group: string; readonly version: string; readonly kind: string };
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string };
  readonly subResource?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  readonly userInfo?: { readonly username?: string; readonly groups?: string[] };
  readonly object?: KubeObject;
  readonly oldObject?: KubeObject;
  readonly dryRun?: boolean;
}

export interface AdmissionVerdict {
  readonly allowed: boolean;
  /** Why, shown to the client on a denial (e.g. by `kubectl drain`). */
  readonly message?: string;
  /** HTTP code of a denial. @default 403 (429 tells eviction clients to retry later) */
  readonly code?: number;
  /** The zone the verdict is about, for the metric (`none` when there is none). */
  readonly zone?: string;
  readonly warnings?: string[];
}

export interface AdmissionWebhook {
  /** In metrics and logs, e.g. `zone-disruption-budget`. */
  readonly name: string;
  /** The HTTPS path the webhook configuration points at, e.g. `/validate/eviction`. */
  readonly path: string;
  /**
   * Resolves once the caches it reads hold their first list: the replica is not ready before.
   * @default none: it reads no cache
   */
  readonly synced?: Promise<unknown>;
  handle(request: AdmissionRequest): Promise<AdmissionVerdict>;
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: unknown;
}

const OPERATIONS: ReadonlyArray<AdmissionRequest['operation']> = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Fields the API server leaves out (or sends as null) when they do not apply. */
const absent = (v: unknown) => v === undefined || v === null;

/** What is wrong with `field` of `obj`, if anything. */
type Check = (obj: Record<string, unknown>) => string | undefined;

const stringField = (field: string, opts: { optional?: boolean; nonEmpty?: boolean } = {}): Check => (obj) => {
  const v = obj[field];
  if (opts.optional && absent(v)) return undefined;
  if (typeof v !== 'string' || (opts.nonEmpty && v === '')) return `${field} must be a${opts.nonEmpty ? ' non-empty' : ''} string`;
  return undefined;
};

const optionalField = (field: string, type: 'boolean' | 'object'): Check => (obj) => {
  const v = obj[field];
  if (absent(v) || (type === 'object' ? isObject(v) : typeof v === type)) return undefined;
  return `${field} must be ${type === 'object' ? 'an object' : `a ${type}`}`;
};

/** A group/version/kind-like object: every one of `fields` a string (group may be empty, the core group). */
const namesField = (field: string, fields: readonly string[]): Check => (obj) => {
  const v = obj[field];
  if (isObject(v) && fields.every((f) => typeof v[f] === 'string')) return undefined;
  return `${field} must be an object with string ${fields.join(', ')}`;
};

const REQUEST_CHECKS: readonly Check[] = [
  stringField('uid', { nonEmpty: true }),
  namesField('kind', ['group', 'version', 'kind']),
  namesField('resource', ['group', 'version', 'resource']),
  stringField('subResource', { optional: true }),
  stringField('name', { optional: true }),
  stringField('namespace', { optional: true }),
  (obj) => (OPERATIONS.includes(obj.operation as AdmissionRequest['operation']) ? undefined : `operation must be one of ${OPERATIONS.join(', ')}`),
  optionalField('userInfo', 'object'),
  optionalField('object', 'object'),
  optionalField('oldObject', 'object'),
  optionalField('dryRun', 'boolean'),
];

/** The request of an AdmissionReview v1 (a request body as text), or what is wrong with it. */
export function parseReview(text: string): { request: AdmissionRequest } | { error: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { error: 'the body is not JSON' };
  }
  if (!isObject(body)) return { error: 'the body is not a JSON object' };
  if (body.apiVersion !== 'admission.k8s.io/v1' || body.kind !== 'AdmissionReview') {
    return { error: 'expected apiVersion admission.k8s.io/v1 and kind AdmissionReview' };
  }
  if (!isObject(body.request)) return { error: 'request must be an object' };
  const request = body.request;
  const wrong = REQUEST_CHECKS.map((check) => check(request)).filter((e) => e !== undefined);
  if (wrong.length > 0) return { error: `request.${wrong.join('; request.')}` };
  // Handlers see a field that does not apply as absent, never as null.
  const present = Object.entries(request).filter(([, v]) => v !== null);
  return { request: Object.fromEntries(present) as unknown as AdmissionRequest };
}

/** The status of a denial: the verdict's code (403 unless given) and message, and the reason Kubernetes names. */
function deniedStatus(verdict: AdmissionVerdict): { code: number; message: string; reason: string } {
  return {
    code: verdict.code ?? 403,
    message: verdict.message ?? 'denied',
    reason: verdict.code === 429 ? 'TooManyRequests' : 'Forbidden',
  };
}

/** Answers one AdmissionReview (the request body as text) with `webhook`, counting the verdict. */
export async function review(webhook: AdmissionWebhook, text: string, metrics?: Metrics): Promise<HttpAnswer> {
  const parsed = parseReview(text);
  if ('error' in parsed) return { status: 400, body: { error: `malformed AdmissionReview: ${parsed.error}` } };
  const request = parsed.request;
  let verdict: AdmissionVerdict;
  try {
    verdict = await webhook.handle(request);
  } catch (err) {
    metrics?.webhookAdmissions.inc({ webhook: webhook.name, zone: 'none', verdict: 'error' });
    return { status: 500, body: { error: err instanceof Error ? err.message : String(err) } };
  }
  metrics?.webhookAdmissions.inc({
    webhook: webhook.name,
    zone: verdict.zone ?? 'none',
    verdict: verdict.allowed ? 'allowed' : 'denied',
  });
  return {
    status: 200,
    body: {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: {
        uid: request.uid,
        allowed: verdict.allowed,
        ...(verdict.allowed ? {} : { status: deniedStatus(verdict) }),
        ...(verdict.warnings?.length ? { warnings: verdict.warnings } : {}),
      },
    },
  };
}
