/**
 * How a construct names the runtime controller that serves it: the `ZoneController` of its own app, or one
 * that another app installs (`ZoneController.fromInstalled`). Either is passed explicitly in the construct's
 * props; nothing searches the app for a controller.
 */
import { FEATURES } from './features';
import { WebhookFailurePolicy } from './webhook-tls';
import { CONTROLLER_APP_NAME } from '../contract/labels';
import { ControllerRule } from '../contract/rbac';
import { ZONE_DISRUPTION_BUDGET } from '../contract/reconcilers';
import { NetworkPeer, podsInNamespace } from '../kubernetes/network-policy';
import { packageVersion } from '../shared/package-version';
import { Props } from '../shared/props';

/** The namespace the controller runs in unless told otherwise. */
export const DEFAULT_CONTROLLER_NAMESPACE = 'cdk8s-zones-system';
/** The name of its Deployment, ServiceAccount, Service and Lease unless told otherwise. */
export const DEFAULT_CONTROLLER_NAME = 'cdk8s-zones-controller';
/** Where the release pushes the controller image. */
const CONTROLLER_IMAGE_REPOSITORY = 'ghcr.io/cdk8s-zones/controller';
/** The image the release of this package version builds from controller/Dockerfile and pushes. */
export const DEFAULT_CONTROLLER_IMAGE = `${CONTROLLER_IMAGE_REPOSITORY}:${packageVersion()}`;
/** The namespaces the eviction webhook never applies to, besides the controller's own. */
export const UNGUARDED_NAMESPACES = ['kube-system'];

/**
 * A running cdk8s-zones controller, as the constructs it serves see it: where it runs, what it runs.
 * Implemented by `ZoneController` (installed by this app) and returned by `ZoneController.fromInstalled`
 * (installed by another app).
 */
export interface IZoneController {
  /** The controller's namespace. */
  readonly namespace: string;
  /** The name of its Deployment, ServiceAccount, Service and Lease. */
  readonly name: string;
  /** Its image (also the image of `wait-for-zone` init containers). */
  readonly image: string;
  /** The reconcilers it runs. */
  readonly reconcilers: string[];
}

/**
 * Props of `ZoneController.fromInstalled`: the settings the other app gave its `ZoneController`.
 */
export interface InstalledZoneControllerProps {
  /**
   * The namespaces whose workloads it serves (its `workloadNamespaces`): a construct that uses it must be in one.
   */
  readonly workloadNamespaces: string[];

  /**
   * The namespace it runs in.
   *
   * @default 'cdk8s-zones-system'
   */
  readonly namespace?: string;

  /**
   * The name of its Deployment (its pods are selected by it in NetworkPolicies).
   *
   * @default 'cdk8s-zones-controller'
   */
  readonly name?: string;

  /**
   * Its image.
   *
   * @default ZoneController.DEFAULT_IMAGE
   */
  readonly image?: string;

  /**
   * It runs the zone annotator.
   *
   * @default true
   */
  readonly zoneAnnotator?: boolean;

  /**
   * It runs the zone-aware-update reconciler.
   *
   * @default false
   */
  readonly zoneAwareUpdate?: boolean;

  /**
   * It runs the zone-disruption-budget reconciler and its eviction webhook.
   *
   * @default false
   */
  readonly zoneDisruptionBudget?: boolean;

  /**
   * It runs the Redis cluster manager.
   *
   * @default false
   */
  readonly redisManager?: boolean;

  /**
   * It runs the zonal shift (ZoneShift).
   *
   * @default false
   */
  readonly zoneShift?: boolean;

  /**
   * It brings replicated state back from a lost zone (its `lostZoneRecovery`).
   *
   * @default false
   */
  readonly lostZoneRecovery?: boolean;

  /**
   * What the API server does when its eviction webhook cannot be reached.
   *
   * @default WebhookFailurePolicy.FAIL
   */
  readonly webhookFailurePolicy?: WebhookFailurePolicy;
}

/**
 * Marks ZoneController instances (recognised by `ZoneController.isZoneController` even across copies of the library).
 */
export const ZONE_CONTROLLER_MARK = Symbol.for('cdk8s-zones.ZoneController');

/**
 * A ZoneController of this app as the constructs it serves reach it, without importing it (it imports them): it
 * grants a feature's rights in a workload's namespace, and says whether its webhook guards one.
 */
export interface ServingZoneController extends IZoneController {
  _serve(feature: string, namespace: string, rules: readonly ControllerRule[]): void;
  _guardsEvictionsIn(namespace: string | undefined): boolean;
}

/** True when `x` is a ZoneController of this app (marked, even across copies of the library). */
export function isServingZoneController(x: unknown): x is ServingZoneController {
  return x !== null && typeof x === 'object' && ZONE_CONTROLLER_MARK in x;
}

/** The check of a `controller` prop: a ZoneController of this app, or `ZoneController.fromInstalled(...)`. */
export const CONTROLLER_PROP = Props.custom('a ZoneController of this app, or ZoneController.fromInstalled(...)',
  (value) => (isControllerReference(value) ? undefined : 'must be a ZoneController of this app, or ZoneController.fromInstalled(...) for one another app installs'));

function isControllerReference(value: unknown): value is IZoneController {
  return isServingZoneController(value) || InstalledZoneController.isInstalledZoneController(value);
}

/**
 * How an error names the controller: a ZoneController of this app by its construct path, one installed elsewhere as
 * itself.
 */
export function describeController(controller: IZoneController): string {
  const path = (controller as { node?: { path?: unknown } }).node?.path;
  return typeof path === 'string' ? `ZoneController '${path}'` : String(controller);
}

/** The reconcilers named by the feature flags of a controller's props, in `--reconcilers` order. */
export function reconcilersOf(
  props: {
    zoneAnnotator?: boolean;
    zoneAwareUpdate?: boolean;
    zoneDisruptionBudget?: boolean;
    redisManager?: boolean;
    zoneShift?: boolean;
    autoshift?: object;
    lostZoneRecovery?: boolean;
  },
): string[] {
  return FEATURES.filter((f) => props[f.prop] ?? f.byDefault).map((f) => f.reconciler);
}

/** The labels that select a controller's pods. */
export function controllerPodSelector(name: string): { [key: string]: string } {
  return { 'app.kubernetes.io/name': CONTROLLER_APP_NAME, 'app.kubernetes.io/instance': name };
}

/** A controller's pods, as a NetworkPolicy peer (for the workloads it connects to, e.g. Redis, Loki's /ready). */
export function controllerPeer(controller: IZoneController): NetworkPeer {
  return podsInNamespace(controller.namespace, controllerPodSelector(controller.name));
}

/** True when a namespace's evictions can be guarded by the controller's webhook at all. */
export function webhookMayGuard(controllerNamespace: string, namespace: string): boolean {
  return namespace !== controllerNamespace && !UNGUARDED_NAMESPACES.includes(namespace);
}

/** True when an eviction webhook with `policy` guards `namespace` and refuses evictions while it cannot be reached. */
export function webhookEnforcesIn(
  policy: WebhookFailurePolicy | undefined,
  controllerNamespace: string,
  namespace: string | undefined,
): boolean {
  return policy === WebhookFailurePolicy.FAIL
    && namespace !== undefined
    && webhookMayGuard(controllerNamespace, namespace);
}

/**
 * The command of an init container (in the controller image) that waits until the zone annotation's downward-API file
 * is non-empty.
 */
export function waitForZoneCommand(file: string, timeoutSeconds?: number): string[] {
  return ['cdk8s-zones-controller', 'wait-for-zone', '--file', file, ...(timeoutSeconds === undefined ? [] : ['--timeout', String(timeoutSeconds)])];
}

/** Marks InstalledZoneController instances (recognised even across copies of the library, as ZoneController's). */
const INSTALLED_ZONE_CONTROLLER = Symbol.for('cdk8s-zones.InstalledZoneController');

/** A controller another app installs: what this app knows of it. */
export class InstalledZoneController implements IZoneController {
  /** True when `x` is an InstalledZoneController. */
  public static isInstalledZoneController(x: unknown): x is InstalledZoneController {
    return x !== null && typeof x === 'object' && INSTALLED_ZONE_CONTROLLER in x;
  }

  public readonly namespace: string;
  public readonly name: string;
  public readonly image: string;
  public readonly reconcilers: string[];
  public readonly workloadNamespaces: string[];
  public readonly webhookFailurePolicy: WebhookFailurePolicy;

  constructor(props: InstalledZoneControllerProps) {
    this.namespace = props.namespace ?? DEFAULT_CONTROLLER_NAMESPACE;
    this.name = props.name ?? DEFAULT_CONTROLLER_NAME;
    this.image = props.image ?? DEFAULT_CONTROLLER_IMAGE;
    this.reconcilers = reconcilersOf(props);
    this.workloadNamespaces = [...props.workloadNamespaces];
    this.webhookFailurePolicy = props.webhookFailurePolicy ?? WebhookFailurePolicy.FAIL;
    Object.defineProperty(this, INSTALLED_ZONE_CONTROLLER, { value: true });
  }

  /** True when its eviction webhook guards `namespace` and fails closed. */
  public guardsEvictionsIn(namespace: string | undefined): boolean {
    return this.reconcilers.includes(ZONE_DISRUPTION_BUDGET)
      && namespace !== undefined
      && this.workloadNamespaces.includes(namespace)
      && webhookEnforcesIn(this.webhookFailurePolicy, this.namespace, namespace);
  }

  public toString(): string {
    return `the installed controller ${this.namespace}/${this.name}`;
  }
}
