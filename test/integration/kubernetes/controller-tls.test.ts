/**
 * Self-managed webhook TLS against the real API server: two controller processes starting together end
 * up with one CA in one Secret, the ValidatingWebhookConfiguration's caBundle is that CA (and is put back
 * when a re-apply wipes it), and the webhook port presents a certificate that chains to it.
 */
import * as https from 'https';
import { freePort } from '../processes';
import { ControllerProcess } from './controller-process';
import { deleteNamespace, restrictedNamespace } from './examples';
import { testCluster, uniqueName } from './scheduling';
import { waitFor } from './wait';

const { client, info } = testCluster();
const ns = uniqueName('controller-tls');
const vwc = uniqueName('controller-tls');
const controllers: ControllerProcess[] = [];

afterAll(async () => {
  await Promise.all(controllers.map((c) => c.stop()));
  await client.delete('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', vwc).catch(() => undefined);
  await deleteNamespace(client, ns);
  client.close();
});

function webhookConfiguration(port: number) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: vwc },
    webhooks: [{
      name: 'tls-test.cdk8s-zones.dev',
      clientConfig: { url: `https://127.0.0.1:${port}/validate/tls-test` },
      // only ConfigMaps of a namespace that does not exist: this webhook never judges anything
      rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': `${ns}-none` } },
      failurePolicy: 'Ignore',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    }],
  };
}

function handshake(port: number, ca: string): Promise<{ status: number; subject: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: '/validate/tls-test', method: 'POST', ca, agent: false }, (res) => {
      const subject = (res.socket as any).getPeerCertificate().subject.CN;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, subject }));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

test('two replicas share one self-managed CA; caBundle follows it; the webhook port serves a certificate it signed', async () => {
  await restrictedNamespace(client, ns);
  const ports = [await freePort(), await freePort()];
  await client.create(webhookConfiguration(ports[0]));
  const args = (port: number) => ['--reconcilers', 'zone-annotator', '--lease-namespace', ns, '--lease-name', 'ctl', '--tls-mode', 'self-managed',
    '--tls-hosts', '127.0.0.1', '--webhook-configurations', vwc, '--webhook-port', String(port)];
  controllers.push(...await Promise.all([
    ControllerProcess.start(info, 'tls-a', args(ports[0])),
    ControllerProcess.start(info, 'tls-b', args(ports[1])),
  ]));

  const secret = await client.get<any>('v1', 'Secret', 'ctl-webhook-tls', ns);
  const ca = Buffer.from(secret.data['ca.crt'], 'base64').toString();
  const config = await client.get<any>('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', vwc);
  expect(Buffer.from(config.webhooks[0].clientConfig.caBundle, 'base64').toString()).toBe(ca);
  // both replicas serve a certificate signed by the one CA (a TLS error would reject)
  for (const port of ports) expect(await handshake(port, ca)).toEqual({ status: 404, subject: 'ctl.' + ns + '.svc' });

  // a restart reuses the Secret rather than making a new CA
  const restarted = await controllers[1].stop();
  expect(restarted).toBe(0);
  controllers[1] = await ControllerProcess.start(info, 'tls-b2', args(ports[1]));
  const again = await client.get<any>('v1', 'Secret', 'ctl-webhook-tls', ns);
  expect(again.data['ca.crt']).toBe(secret.data['ca.crt']);
  expect(again.metadata.resourceVersion).toBe(secret.metadata.resourceVersion);

  // a re-apply that wipes caBundle is repaired at start (the running replicas also check every minute)
  const wiped = await client.get<any>('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', vwc);
  delete wiped.webhooks[0].clientConfig.caBundle;
  await client.request('PUT', await client.path('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', undefined, vwc), wiped);
  expect((await client.get<any>('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', vwc)).webhooks[0].clientConfig.caBundle).toBeUndefined();
  await controllers[1].stop();
  controllers[1] = await ControllerProcess.start(info, 'tls-b3', args(ports[1]));
  await waitFor('caBundle restored', async () => {
    const c = await client.get<any>('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', vwc);
    return { done: c.webhooks[0].clientConfig.caBundle === secret.data['ca.crt'] };
  });
});
