import { MemoryKubeApi, strategicMergePatch } from './memory-kube-api';
import { KubeApiError } from '../src/kubernetes/kube-api';

test('the in-memory API answers as the API server does where the tests depend on it: 404, 409, lists across namespaces and by label', async () => {
  const api = new MemoryKubeApi();
  api.put('/api/v1/namespaces/a/pods', { metadata: { name: 'p', labels: { app: 'x' } } });
  api.put('/api/v1/namespaces/b/pods', { metadata: { name: 'q', labels: { app: 'y' } } });
  expect((await api.list('/api/v1/pods')).items.map((p: any) => p.metadata.name)).toEqual(['p', 'q']);
  expect((await api.list('/api/v1/pods', { labelSelector: 'app=y' })).items.map((p: any) => p.metadata.name)).toEqual(['q']);
  expect((await api.list('/api/v1/namespaces/a/pods', { labelSelector: 'app' })).items.map((p: any) => p.metadata.name)).toEqual(['p']);
  await expect(api.get('/api/v1/namespaces/a/pods/nope')).rejects.toMatchObject({ constructor: KubeApiError, status: 404, reason: 'NotFound' });
  await expect(api.create('/api/v1/namespaces/a/pods', { metadata: { name: 'p' } }))
    .rejects.toMatchObject({ constructor: KubeApiError, status: 409 });
  const stale = await api.get('/api/v1/namespaces/a/pods/p');
  await api.patch('/api/v1/namespaces/a/pods/p', { metadata: { labels: { app: 'z' } } });
  await expect(api.replace('/api/v1/namespaces/a/pods/p', stale)).rejects.toMatchObject({ constructor: KubeApiError, status: 409 });
  expect(api.calls).toEqual([
    'LIST /api/v1/pods', 'LIST /api/v1/pods?labelSelector=app=y', 'LIST /api/v1/namespaces/a/pods?labelSelector=app',
    'GET /api/v1/namespaces/a/pods/nope', 'POST /api/v1/namespaces/a/pods', 'GET /api/v1/namespaces/a/pods/p',
    'PATCH /api/v1/namespaces/a/pods/p', 'PUT /api/v1/namespaces/a/pods/p',
  ]);
});

test('a strategic merge patch merges lists of named items by name, and adds the new ones', () => {
  const target = { webhooks: [{ name: 'a', clientConfig: { url: 'u' } }, { name: 'b', clientConfig: {} }] };
  const patch = { webhooks: [{ name: 'b', clientConfig: { caBundle: 'c' } }, { name: 'n' }] };
  expect(strategicMergePatch(target, patch)).toEqual({
    webhooks: [{ name: 'a', clientConfig: { url: 'u' } }, { name: 'b', clientConfig: { caBundle: 'c' } }, { name: 'n' }],
  });
});

test('a patch of the status subresource changes the status alone, as the API server does', async () => {
  const api = new MemoryKubeApi();
  const list = '/apis/example.dev/v1/namespaces/a/things';
  api.put(list, { metadata: { name: 't' }, spec: { size: 1 }, status: { phase: 'Old', kept: true } });
  await api.patch(`${list}/t/status`, { spec: { size: 2 }, status: { phase: 'New' } });
  expect(await api.get(`${list}/t`)).toMatchObject({ spec: { size: 1 }, status: { phase: 'New', kept: true } });
  await expect(api.patch(`${list}/gone/status`, { status: {} })).rejects.toMatchObject({ status: 404 });
});
