/** A test webhook and eviction reviews, shared by the admission and server tests. */
import { AdmissionWebhook } from '../src/admission';

/** Denies evictions in namespace `b` (zone-b), allows the others; throws for a pod named `boom`. */
export const denyZoneB: AdmissionWebhook = {
  name: 'test',
  path: '/validate/test',
  async handle(req) {
    if (req.name === 'boom') throw new Error('cache not synced');
    const zone = req.namespace === 'b' ? 'zone-b' : 'zone-a';
    return zone === 'zone-b' ? { allowed: false, code: 429, message: 'zone-a is disrupted', zone } : { allowed: true, zone };
  },
};

/** The AdmissionReview request of evicting pod `name` of `namespace`. */
export const evictionRequest = (uid: string, namespace: string, name = 'p') => ({
  uid,
  namespace,
  name,
  operation: 'CREATE',
  kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
  resource: { group: '', version: 'v1', resource: 'pods' },
  subResource: 'eviction',
});

/** The whole AdmissionReview of that eviction. */
export const evictionReview = (uid: string, namespace: string, name = 'p') =>
  ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: evictionRequest(uid, namespace, name) });
