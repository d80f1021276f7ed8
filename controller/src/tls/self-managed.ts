/**
 * `--tls-mode self-managed`: the webhook PKI lives in a Secret of the controller's namespace (made by
 * whichever replica gets there first; the other reads it), and every replica keeps the
 * ValidatingWebhookConfigurations' caBundle equal to the Secret's CA, checking again every minute (a
 * re-applied manifest without caBundle is repaired) and renewing the certificates 30 days before expiry.
 */
import { isStatus, KubeApi, KubeObject, resourcePath } from '../kube/api';
import { Logger } from '../log';
import { createWebhookPki, pkiProblem, WebhookPki } from './certificates';
import { SECRETS, VALIDATING_WEBHOOK_CONFIGURATIONS } from '../resources';


export interface SelfManagedTlsOptions {
  readonly namespace: string;
  readonly secretName: string;
  /** DNS names (and IPs) the serving certificate covers. */
  readonly hosts: readonly string[];
  /** ValidatingWebhookConfigurations whose every webhook gets the CA as caBundle. */
  readonly webhookConfigurations: readonly string[];
  readonly log: Logger;
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string | undefined) => (s === undefined ? undefined : Buffer.from(s, 'base64').toString('utf8'));

function pkiOf(secret: KubeObject | undefined): Partial<WebhookPki> | undefined {
  if (!secret) return undefined;
  const d = (secret.data ?? {}) as Record<string, string>;
  return { ca: { cert: unb64(d['ca.crt'])!, key: unb64(d['ca.key'])! }, serving: { cert: unb64(d['tls.crt'])!, key: unb64(d['tls.key'])! } };
}

function secretData(pki: WebhookPki): Record<string, string> {
  return { 'ca.crt': b64(pki.ca.cert), 'ca.key': b64(pki.ca.key), 'tls.crt': b64(pki.serving.cert), 'tls.key': b64(pki.serving.key) };
}

/**
 * The PKI to serve with: the Secret's when it is usable, else a new one written to the Secret. A
 * concurrent writer (the other replica) wins by resourceVersion; its PKI is then read and used.
 */
export async function ensureWebhookPki(kube: KubeApi, opts: SelfManagedTlsOptions): Promise<WebhookPki> {
  const path = resourcePath(SECRETS, opts.namespace, opts.secretName);
  for (let attempt = 0; attempt < 5; attempt++) {
    const secret = await kube.get(path).catch((err) => {
      if (isStatus(err, 404)) return undefined;
      throw err;
    });
    const stored = pkiOf(secret);
    const problem = pkiProblem(stored, opts.hosts);
    if (!problem) return stored as WebhookPki;
    opts.log.info('creating the webhook certificates', { secret: `${opts.namespace}/${opts.secretName}`, why: problem });
    const pki = createWebhookPki(opts.hosts);
    const body = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: {
        name: opts.secretName,
        namespace: opts.namespace,
        resourceVersion: secret?.metadata.resourceVersion,
        labels: { 'app.kubernetes.io/managed-by': 'cdk8s-zones-controller' },
      },
      data: secretData(pki),
    };
    try {
      if (secret) await kube.replace(path, body);
      else await kube.create(resourcePath(SECRETS, opts.namespace), body);
      return pki;
    } catch (err) {
      if (!isStatus(err, 409)) throw err;
      opts.log.info('another replica wrote the webhook certificates first; using them');
    }
  }
  throw new Error(`could not settle the webhook certificates in Secret ${opts.namespace}/${opts.secretName} after 5 attempts`);
}

/** Sets caBundle on every webhook of the configurations where it differs; returns how many it patched. */
export async function injectCaBundle(kube: KubeApi, opts: SelfManagedTlsOptions, caPem: string): Promise<number> {
  const caBundle = b64(caPem);
  let patched = 0;
  for (const name of opts.webhookConfigurations) {
    const path = resourcePath(VALIDATING_WEBHOOK_CONFIGURATIONS, undefined, name);
    let config: KubeObject;
    try {
      config = await kube.get(path);
    } catch (err) {
      if (isStatus(err, 404)) {
        opts.log.warn('webhook configuration not found (yet)', { webhookConfiguration: name });
        continue;
      }
      throw err;
    }
    const webhooks = (config.webhooks ?? []) as Array<{ name: string; clientConfig?: { caBundle?: string } }>;
    const stale = webhooks.filter((w) => w.clientConfig?.caBundle !== caBundle);
    if (stale.length === 0) continue;
    // webhooks merge by name in a strategic merge patch: only caBundle changes
    await kube.patch(path, { webhooks: stale.map((w) => ({ name: w.name, clientConfig: { caBundle } })) }, 'strategic');
    opts.log.info('patched caBundle', { webhookConfiguration: name, webhooks: stale.map((w) => w.name) });
    patched += stale.length;
  }
  return patched;
}
