/**
 * The checks over the whole app that a ZoneController makes: the same controller installed twice, objects it
 * emits that something else emits too, and a default image no registry serves.
 */
import { ApiObject } from 'cdk8s';
import { IConstruct } from 'constructs';
import { DEFAULT_CONTROLLER_IMAGE, ZONE_CONTROLLER_MARK } from './controller-reference';
import { FEATURES } from './features';
import { docsUrl } from '../contract/docs';
import { packageVersion } from '../shared/package-version';
import { addWarning } from '../shared/warnings';

/** What the checks need of a ZoneController. */
export interface InstalledController extends IConstruct {
  readonly namespace: string;
  readonly name: string;
  readonly image: string;
  readonly reconcilers: string[];
}

function isController(x: IConstruct): x is InstalledController {
  return ZONE_CONTROLLER_MARK in x;
}

/**
 * Warns, once per app, when the default image names a version no release published (a build from source: 0.0.0,
 * or a pre-release), which no registry will serve.
 */
export function warnOfUnpublishedImage(controller: InstalledController): void {
  if (/^\d+\.\d+\.\d+$/.test(packageVersion()) && packageVersion() !== '0.0.0') return;
  const earlier = controller.node.root.node.findAll()
    .some((c) => isController(c) && c !== controller && c.image === DEFAULT_CONTROLLER_IMAGE);
  if (earlier) return;
  addWarning(controller, `image: the default ${DEFAULT_CONTROLLER_IMAGE} names version ${packageVersion()} of cdk8s-zones, which no release ` +
    `published (a build from source), so no registry serves it: build the image with Docker, buildah or podman (${docsUrl('controller.md', 'The image')}), ` +
    'push it where your cluster pulls from, and name it with the image prop');
}

/**
 * ZoneControllers of the app that install this one's controller again (same namespace and name): one error for
 * them all, said by the first, which says how to merge them (and nothing else from either, which would follow
 * from it); undefined when there are none.
 */
export function twinErrors(controller: InstalledController): string[] | undefined {
  const all = controller.node.root.node.findAll();
  const twins = all.filter((c): c is InstalledController => isController(c) && c !== controller
    && c.namespace === controller.namespace && c.name === controller.name);
  if (twins.length === 0) return undefined;
  return all.indexOf(controller) < all.indexOf(twins[0]) ? [mergeControllers(controller, twins)] : [];
}

/**
 * Objects this controller emits that something else in the app emits too: two manifests of one object, the last
 * one applied wins (a second controller apart that installs the CRDs too, the user's own Namespace).
 */
export function duplicatesOf(controller: InstalledController): string[] {
  const key = (o: ApiObject) => `${o.apiVersion.split('/')[0]} ${o.kind} ${o.metadata.namespace ?? ''}/${o.name}`;
  const isObject = (c: IConstruct): c is ApiObject => c instanceof ApiObject;
  const all = controller.node.root.node.findAll();
  const own = new Set(controller.node.findAll().filter(isObject));
  const ownKeys = new Set([...own].map(key));
  return all.filter(isObject).filter((o) => !own.has(o) && ownKeys.has(key(o))).map((o) =>
    `ZoneController '${controller.node.path}': emits ${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.name}, ` +
    `which '${o.node.path}' emits too: set another namespace or name, installCrds: false, or createNamespace: false`);
}

/** The one error for ZoneControllers that install one controller twice: keep one, with every feature in use. */
function mergeControllers(first: InstalledController, twins: readonly InstalledController[]): string {
  const features = FEATURES
    .filter((f) => [first, ...twins].some((c) => c.reconcilers.includes(f.reconciler)))
    .map((f) => (f.prop === 'autoshift' ? 'autoshift: { ... }' : `${f.prop}: true`));
  return `ZoneController '${first.node.path}' and ${twins.map((t) => `'${t.node.path}'`).join(', ')} install one controller twice ` +
    `(${first.namespace}/${first.name}): an app needs one ZoneController serving every feature in use. Keep one, ` +
    `new ZoneController(chart, 'controller', { ${features.join(', ')}, ... }), and pass it as \`controller\` to every construct that needs it; ` +
    'or, for two controllers apart, give the second another namespace and name and installCrds: false';
}
