/**
 * Step 2 of a migration to zone awareness with a controller (migration.ts): the controller rolls the distributors
 * to their zone-aware template once the ingesters are done, then, the query lookback after the distributors are
 * done, the queriers and rulers. Each is a ZoneAwareUpdate over its paused Deployment, started after the one
 * before it (`startAfter`, `startDelay`); their status says which is rolling and when the next starts.
 */
import { Duration } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { componentName, LokiComponent, ResolvedLoki } from './options';
import { RolloutTarget, ZoneAwareUpdate } from '../rollout/zone-aware-update';
import { IZoneController } from '../zone-controller/controller-reference';

/** The components the controller rolls in step 2, write path first. */
export const CONTROLLER_ROLLED: readonly LokiComponent[] = [
  LokiComponent.DISTRIBUTOR,
  LokiComponent.QUERIER,
  LokiComponent.RULER,
];

/**
 * The ZoneAwareUpdates of step 2: the distributors' after the ingesters' (`ingesters`), then the queriers' and the
 * rulers' `lookback` after the distributors'. One pod at a time (the replicas written before may share a zone).
 */
export function migrationRollouts(
  scope: Construct, p: ResolvedLoki, deployments: readonly k8s.KubeDeployment[], ingesters: ZoneAwareUpdate,
  controller: IZoneController, lookback: Duration,
): void {
  const rollout = (c: LokiComponent, startAfter: ZoneAwareUpdate, startDelay?: Duration) => {
    const deployment = deployments.find((d) => d.name === componentName(p, c));
    return deployment && new ZoneAwareUpdate(scope, `${c}-zone-awareness`, {
      controller,
      name: deployment.name,
      namespace: p.metadataNamespace,
      target: RolloutTarget.deployment(deployment),
      maxUnavailable: 1,
      exponentialFactor: 0,
      startAfter,
      startDelay,
    });
  };
  const distributors = rollout(LokiComponent.DISTRIBUTOR, ingesters)!;
  rollout(LokiComponent.QUERIER, distributors, lookback);
  rollout(LokiComponent.RULER, distributors, lookback);
}
