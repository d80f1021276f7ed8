/**
 * Admission webhooks: the AdmissionReview v1 envelope in and out, so a webhook is just a function from
 * request to verdict. A handler that throws is answered with HTTP 500, so the API server applies the
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
  handle(request: AdmissionRequest): Promise<AdmissionVerdict>;
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Answers one AdmissionReview (parsed JSON body) with `webhook`, counting the verdict. */
export async function review(webhook: AdmissionWebhook, body: unknown, metrics?: Metrics): Promise<HttpAnswer> {
  const request = (body as { apiVersion?: string; kind?: string; request?: AdmissionRequest } | undefined);
  if (request?.kind !== 'AdmissionReview' || request.apiVersion !== 'admission.k8s.io/v1' || !request.request?.uid) {
    return { status: 400, body: { error: 'expected an admission.k8s.io/v1 AdmissionReview with a request' } };
  }
  let verdict: AdmissionVerdict;
  try {
    verdict = await webhook.handle(request.request);
  } catch (err) {
    metrics?.webhookAdmissions.inc({ webhook: webhook.name, zone: 'none', verdict: 'error' });
    return { status: 500, body: { error: err instanceof Error ? err.message : String(err) } };
  }
  metrics?.webhookAdmissions.inc({ webhook: webhook.name, zone: verdict.zone ?? 'none', verdict: verdict.allowed ? 'allowed' : 'denied' });
  return {
    status: 200,
    body: {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: {
        uid: request.request.uid,
        allowed: verdict.allowed,
        ...(verdict.allowed ? {} : { status: { code: verdict.code ?? 403, message: verdict.message ?? 'denied', reason: verdict.code === 429 ? 'TooManyRequests' : 'Forbidden' } }),
        ...(verdict.warnings?.length ? { warnings: verdict.warnings } : {}),
      },
    },
  };
}
