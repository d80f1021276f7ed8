import { denyZoneB, evictionRequest, evictionReview } from './admission-fixtures';
import { AdmissionRequest, AdmissionWebhook, review } from '../src/admission';
import { createMetrics } from '../src/metrics';

const request = evictionRequest;
const reviewOf = (uid: string, namespace: string, name = 'p') => JSON.stringify(evictionReview(uid, namespace, name));

describe('admission', () => {
  test('verdicts become AdmissionReview responses with the request uid, and are counted per zone', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    expect(await review(denyZoneB, reviewOf('u1', 'a'), metrics)).toEqual({
      status: 200, body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u1', allowed: true } },
    });
    expect(await review(denyZoneB, reviewOf('u2', 'b'), metrics)).toEqual({
      status: 200,
      body: {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: {
          uid: 'u2',
          allowed: false,
          status: { code: 429, message: 'zone-a is disrupted', reason: 'TooManyRequests' },
        },
      },
    });
    // a handler that throws: 500, so the API server applies the failure policy
    expect(await review(denyZoneB, reviewOf('u3', 'a', 'boom'), metrics)).toEqual({ status: 500, body: { error: 'cache not synced' } });
    const text = await metrics.registry.metrics();
    expect(text).toContain('cdk8s_zones_webhook_admissions_total{webhook="test",zone="zone-a",verdict="allowed"} 1');
    expect(text).toContain('cdk8s_zones_webhook_admissions_total{webhook="test",zone="zone-b",verdict="denied"} 1');
    expect(text).toContain('cdk8s_zones_webhook_admissions_total{webhook="test",zone="none",verdict="error"} 1');
  });

  const envelope = (req: unknown, over: object = {}) => JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: req,
    ...over,
  });
  const without = (field: string) => Object.fromEntries(Object.entries(request('u', 'a')).filter(([k]) => k !== field));
  const withField = (field: string, value: unknown) => ({ ...request('u', 'a'), [field]: value });

  test.each<[string, string, string]>([
    ['not JSON', 'nope', 'the body is not JSON'],
    ['an empty body', '', 'the body is not JSON'],
    ['a JSON array', '[]', 'the body is not a JSON object'],
    ['JSON null', 'null', 'the body is not a JSON object'],
    ['another apiVersion', envelope(request('u', 'a'), { apiVersion: 'admission.k8s.io/v1beta1' }), 'expected apiVersion admission.k8s.io/v1 and kind AdmissionReview'],
    ['another kind', envelope(request('u', 'a'), { kind: 'Pod' }), 'expected apiVersion admission.k8s.io/v1 and kind AdmissionReview'],
    ['no request', envelope(undefined), 'request must be an object'],
    ['a request that is a string', envelope('x'), 'request must be an object'],
    ['no uid', envelope(without('uid')), 'request.uid must be a non-empty string'],
    ['an empty uid', envelope(withField('uid', '')), 'request.uid must be a non-empty string'],
    ['a numeric uid', envelope(withField('uid', 5)), 'request.uid must be a non-empty string'],
    ['no resource', envelope(without('resource')), 'request.resource must be an object with string group, version, resource'],
    ['a resource without its name', envelope(withField('resource', { group: '', version: 'v1' })), 'request.resource must be an object with string group, version, resource'],
    ['a resource that is a string', envelope(withField('resource', 'pods')), 'request.resource must be an object with string group, version, resource'],
    ['no kind', envelope(without('kind')), 'request.kind must be an object with string group, version, kind'],
    ['no operation', envelope(without('operation')), 'request.operation must be one of CREATE, UPDATE, DELETE, CONNECT'],
    ['an unknown operation', envelope(withField('operation', 'PATCH')), 'request.operation must be one of CREATE, UPDATE, DELETE, CONNECT'],
    ['a numeric name', envelope(withField('name', 5)), 'request.name must be a string'],
    ['an object namespace', envelope(withField('namespace', {})), 'request.namespace must be a string'],
    ['a numeric subResource', envelope(withField('subResource', 1)), 'request.subResource must be a string'],
    ['a string dryRun', envelope(withField('dryRun', 'true')), 'request.dryRun must be a boolean'],
    ['an object that is a string', envelope(withField('object', 'x')), 'request.object must be an object'],
    ['an array userInfo', envelope(withField('userInfo', [])), 'request.userInfo must be an object'],
    ['two wrong fields', envelope({ ...without('uid'), operation: 1 }), 'request.uid must be a non-empty string; request.operation must be one of CREATE, UPDATE, DELETE, CONNECT'],
  ])('%s: 400 with what is wrong, the handler never called', async (_case, body, error) => {
    const handle = jest.fn(denyZoneB.handle);
    const metrics = createMetrics({ defaultMetrics: false });
    expect(await review({ ...denyZoneB, handle }, body, metrics)).toEqual({ status: 400, body: { error: `malformed AdmissionReview: ${error}` } });
    expect(handle).not.toHaveBeenCalled();
    expect(await metrics.registry.metrics()).not.toContain('cdk8s_zones_webhook_admissions_total{');
  });

  test('fields the API server sends as null (oldObject of a CREATE) reach the handler as absent', async () => {
    let seen: AdmissionRequest | undefined;
    const webhook: AdmissionWebhook = { ...denyZoneB, async handle(req) { seen = req; return { allowed: true }; } };
    const body = envelope({
      ...request('u', 'a'),
      object: { metadata: { name: 'p' } },
      oldObject: null,
      dryRun: null,
      userInfo: { username: 'kube' },
    });
    expect(await review(webhook, body)).toMatchObject({ status: 200, body: { response: { uid: 'u', allowed: true } } });
    expect(seen).toEqual({ ...request('u', 'a'), object: { metadata: { name: 'p' } }, userInfo: { username: 'kube' } });
  });
});
