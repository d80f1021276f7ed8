import { KubeProps } from '../kubernetes/kubernetes-props';
import { invalidProp } from '../shared/errors';
import { checkProps, Props } from '../shared/props';

/** Where the serving certificate of the controller's admission webhooks comes from. */
export enum WebhookTlsMode {
  /** cert-manager issues it (Certificate, optionally a self-signed Issuer) and injects the CA. */
  CERT_MANAGER = 'cert-manager',
  /** The controller makes a CA at start, keeps it in a Secret and patches the caBundle itself. */
  SELF_MANAGED = 'self-managed',
}

/** The kind of a cert-manager issuer. */
export enum CertManagerIssuerKind {
  /** A namespaced `Issuer` in the controller's namespace. */
  ISSUER = 'Issuer',
  /** A cluster-wide `ClusterIssuer`. */
  CLUSTER_ISSUER = 'ClusterIssuer',
}

/** What the API server does when the controller's webhook cannot be reached or fails. */
export enum WebhookFailurePolicy {
  /** Refuse the request (an eviction waits until the controller answers): the budget is never bypassed. */
  FAIL = 'Fail',
  /** Let the request through unchecked. */
  IGNORE = 'Ignore',
}

/** Options of `WebhookTls.certManager`. */
export interface CertManagerTlsOptions {
  /**
   * An existing issuer to sign the serving certificate.
   *
   * @default - a self-signed Issuer in the controller's namespace, synthesized with the controller
   */
  readonly issuerName?: string;

  /**
   * The kind of `issuerName`.
   *
   * @default CertManagerIssuerKind.ISSUER
   */
  readonly issuerKind?: CertManagerIssuerKind;
}

/**
 * TLS of the controller's admission webhooks (the API server calls webhooks over HTTPS only). Pick one of
 * the two modes; a `ZoneController` serving a webhook without one fails at synth time.
 */
export class WebhookTls {
  /**
   * cert-manager (installed separately) issues the serving certificate into a Secret the controller
   * mounts, and its CA injector sets the webhook configuration's caBundle
   * (annotation `cert-manager.io/inject-ca-from`).
   */
  public static certManager(options: CertManagerTlsOptions = {}): WebhookTls {
    const where = 'WebhookTls.certManager';
    checkProps(where, options, {
      issuerName: Props.optional(KubeProps.dnsSubdomain()),
      issuerKind: Props.optional(Props.enumOf(CertManagerIssuerKind, 'CertManagerIssuerKind')),
    }, 'CertManagerTlsOptions', 'options');
    if (options.issuerKind !== undefined && options.issuerName === undefined) {
      throw invalidProp(where, 'issuerKind', options.issuerKind, 'needs issuerName: the self-signed Issuer made without it is always an Issuer');
    }
    const issuerKind = options.issuerKind ?? CertManagerIssuerKind.ISSUER;
    return new WebhookTls(WebhookTlsMode.CERT_MANAGER, options.issuerName, issuerKind);
  }

  /**
   * No dependency: the first controller replica creates a CA and a serving certificate, stores them in a
   * Secret of its namespace, and every replica keeps the webhook configuration's caBundle equal to it.
   */
  public static selfManaged(): WebhookTls {
    return new WebhookTls(WebhookTlsMode.SELF_MANAGED, undefined, undefined);
  }

  /** The mode. */
  public readonly mode: WebhookTlsMode;
  /** cert-manager: the existing issuer, if one was given. */
  public readonly issuerName?: string;
  /** cert-manager: the kind of `issuerName`. */
  public readonly issuerKind?: CertManagerIssuerKind;

  private constructor(
    mode: WebhookTlsMode,
    issuerName: string | undefined,
    issuerKind: CertManagerIssuerKind | undefined,
  ) {
    this.mode = mode;
    this.issuerName = issuerName;
    this.issuerKind = issuerKind;
  }
}
