/**
 * How a ZoneController serves admission webhooks: the ValidatingWebhookConfiguration pointing at its Service,
 * and what the TLS mode needs (cert-manager objects and the mounted Secret, or the self-managed flags and the
 * access to its own Secret and caBundle).
 */
import { ApiObject, ApiObjectProps, Lazy } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { CertManagerIssuerKind, WebhookFailurePolicy, WebhookTls, WebhookTlsMode } from './webhook-tls';
import { ControllerRule } from '../contract/rbac';
import { clusterScoped } from '../kubernetes/object-names';
import { NAMESPACE_NAME_LABEL } from '../kubernetes/standard-labels';
import { invalidProp } from '../shared/errors';

/** Where the cert-manager Secret is mounted. */
const TLS_DIR = '/etc/cdk8s-zones/tls';
/** The label the API server puts on every namespace, with its name. */

/** An admission webhook a feature of the controller serves. */
export interface ServedWebhook {
  /** The webhook's name in the configuration (a domain-like name). */
  readonly name: string;
  /** The HTTPS path the controller serves it on. */
  readonly path: string;
  readonly rules: k8s.RuleWithOperations[];
  /** The feature whose workloads' namespaces the webhook applies to. */
  readonly feature: string;
}

/** What the controller's container and rights need to serve the webhooks. */
export interface WebhookServing {
  readonly args: string[];
  readonly rules: ControllerRule[];
  readonly volumes: k8s.Volume[];
  readonly mounts: k8s.VolumeMount[];
}

/** No webhook served: nothing to add. */
export const NO_WEBHOOKS: WebhookServing = { args: [], rules: [], volumes: [], mounts: [] };

export interface WebhookServingOptions {
  /** The controller's name: its Service, and the prefix of the TLS objects. */
  readonly name: string;
  readonly namespace: string;
  /** The ValidatingWebhookConfiguration's name. */
  readonly configName: string;
  readonly labels: { [key: string]: string };
  readonly webhooks: readonly ServedWebhook[];
  readonly tls: WebhookTls;
  readonly failurePolicy: WebhookFailurePolicy;
  /** The namespaces whose requests a feature's webhook sees (resolved at synthesis). */
  readonly guardedNamespaces: (feature: string) => string[];
}

/** The namespaces a feature's webhook sees, resolved at synthesis (once every feature has registered). */
function lazyNamespaces(opts: WebhookServingOptions, feature: string): string[] {
  return Lazy.any({ produce: () => opts.guardedNamespaces(feature) }) as unknown as string[];
}

/** `webhookTls` exactly when a feature serves an admission webhook. */
export function checkWebhookTls(where: string, tls: WebhookTls | undefined, webhooks: readonly ServedWebhook[]): void {
  if (webhooks.length === 0 && tls) {
    throw invalidProp(where, 'webhookTls', tls.mode, 'is set but no enabled feature serves an admission webhook: leave it out');
  }
  if (webhooks.length > 0 && !tls) {
    throw invalidProp(where, 'webhookTls', undefined,
      `is required: ${webhooks.map((w) => w.name).join(', ')} must be served over HTTPS; use WebhookTls.certManager() or WebhookTls.selfManaged()`);
  }
}

/**
 * The ValidatingWebhookConfiguration (pointing at the Service) and what its TLS mode needs: cert-manager
 * objects and the mounted Secret, or the self-managed flags and the access to its Secret and caBundle.
 */
export function serveWebhooks(controller: Construct, opts: WebhookServingOptions): WebhookServing {
  const { name, namespace, configName, labels, webhooks, tls, failurePolicy } = opts;
  const secretName = `${name}-webhook-tls`;
  const certificateName = `${name}-webhook`;
  const annotations = tls.mode === WebhookTlsMode.CERT_MANAGER ? { 'cert-manager.io/inject-ca-from': `${namespace}/${certificateName}` } : undefined;
  clusterScoped(new k8s.KubeValidatingWebhookConfiguration(controller, 'webhook-configuration', {
    metadata: { name: configName, labels, annotations },
    webhooks: webhooks.map((w) => ({
      name: w.name,
      clientConfig: { service: { name: name, namespace: namespace, path: w.path, port: 443 } },
      rules: w.rules,
      failurePolicy,
      // Only the namespaces that hold the feature's workloads, so an outage of the controller blocks
      // evictions of those pods alone. (An object selector cannot do it: it sees the Eviction, which has no labels.)
      namespaceSelector: {
        matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'In', values: lazyNamespaces(opts, w.feature) }],
      },
      // An allowed eviction reserves the pod until the API server deletes it (never on a dry run).
      sideEffects: 'NoneOnDryRun',
      admissionReviewVersions: ['v1'],
      // The webhook may wait out another eviction's reservation (a few seconds) before it answers.
      timeoutSeconds: 10,
    })),
  }));
  if (tls.mode === WebhookTlsMode.SELF_MANAGED) {
    return {
      args: ['--tls-mode', 'self-managed', '--tls-secret', secretName, '--webhook-service', name, '--webhook-configurations', configName],
      rules: [
        { apiGroups: [''], resources: ['secrets'], verbs: ['create'], scope: 'controller' },
        { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'update'], scope: 'controller', resourceNames: [secretName] },
        // its own configuration only: patching another webhook's caBundle could weaken that webhook
        { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], verbs: ['get', 'patch'], scope: 'cluster', resourceNames: [configName] },
      ] as ControllerRule[],
      volumes: [] as k8s.Volume[],
      mounts: [] as k8s.VolumeMount[],
    };
  }
  certManagerObjects(controller, { name, namespace, labels, tls, secretName, certificateName });
  return {
    args: ['--tls-mode', 'files', '--tls-cert-file', `${TLS_DIR}/tls.crt`, '--tls-key-file', `${TLS_DIR}/tls.key`],
    rules: [] as ControllerRule[],
    volumes: [{ name: 'webhook-tls', secret: { secretName } }] as k8s.Volume[],
    mounts: [{ name: 'webhook-tls', mountPath: TLS_DIR, readOnly: true }] as k8s.VolumeMount[],
  };
}

/** cert-manager's Certificate for the webhook Service (and a self-signed Issuer when none is named). */
function certManagerObjects(controller: Construct, o: {
  name: string;
  namespace: string;
  labels: { [key: string]: string };
  tls: WebhookTls;
  secretName: string;
  certificateName: string;
}): void {
  const { name, namespace, labels, tls, secretName, certificateName } = o;
  let issuer = tls.issuerName;
  let issuerKind = tls.issuerKind ?? CertManagerIssuerKind.ISSUER;
  if (issuer === undefined) {
    issuer = `${name}-selfsigned`;
    issuerKind = CertManagerIssuerKind.ISSUER;
    new ApiObject(controller, 'issuer', {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Issuer',
      metadata: { name: issuer, namespace: namespace, labels },
      spec: { selfSigned: {} },
    } as ApiObjectProps);
  }
  new ApiObject(controller, 'certificate', {
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    metadata: { name: certificateName, namespace: namespace, labels },
    spec: {
      secretName,
      dnsNames: [`${name}.${namespace}.svc`, `${name}.${namespace}.svc.cluster.local`],
      issuerRef: { name: issuer, kind: issuerKind, group: 'cert-manager.io' },
      privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' },
    },
  } as ApiObjectProps);
}
