/**
 * The zone check as a cdk8s CLI validation plugin: listed under `validations` in cdk8s.yaml, it checks what
 * `cdk8s synth` wrote and fails the synth (or only warns) when a workload does not survive losing a zone.
 */
import { analyzeManifests } from './analyze';
import {
  allFindings, LocatedFinding, severityRank, survivesAnyZone, verdict, workloadId, zoneLossFindings,
} from './format-common';
import { ZoneInventory } from './inventory';
import { FindingSeverity } from './model';
import { asObject, listItems, Meta } from '../kubernetes/objects';
import { checkProps, Props, PropSpec } from '../shared/props';

/** Which findings fail `cdk8s synth`. */
export enum ZoneCheckFailOn {
  /** A workload that does not survive losing a zone, or any error finding. */
  ERROR = 'error',
  /** As ERROR, and any warning too. */
  WARNING = 'warning',
  /** Nothing: the findings are reported, the synth succeeds. */
  NEVER = 'never',
}

/** Props of `ZoneCheckValidation` (the `properties` of its entry in cdk8s.yaml). */
export interface ZoneCheckValidationProps {
  /** The zones, by their zone label value. */
  readonly zones: string[];
  /**
   * Equal nodes per zone, unlimited in CPU and memory.
   *
   * @default 3
   */
  readonly nodesPerZone?: number;
  /**
   * Which findings fail the synth.
   *
   * @default ZoneCheckFailOn.ERROR
   */
  readonly failOn?: ZoneCheckFailOn;
}

const PROPS: PropSpec<ZoneCheckValidationProps> = {
  zones: Props.arrayOf(Props.nonEmptyString(), 1),
  nodesPerZone: Props.optional(Props.integer(1, 10_000)),
  failOn: Props.optional(Props.enumOf(ZoneCheckFailOn, 'ZoneCheckFailOn')),
};

/** Where the cdk8s report points: the object's spec (a finding is about the workload as a whole). */
const LOCATION = 'spec';

/**
 * A cdk8s CLI validation plugin running the zone check over the synthesized manifests.
 *
 * In cdk8s.yaml: `validations: [{ package: cdk8s-zones, version: <version>, class: ZoneCheckValidation,
 * properties: { zones: [zone-a, zone-b, zone-c] } }]`.
 */
export class ZoneCheckValidation {
  private readonly inventory: ZoneInventory;
  private readonly failOn: ZoneCheckFailOn;

  constructor(props: ZoneCheckValidationProps) {
    checkProps('ZoneCheckValidation', props, PROPS, 'ZoneCheckValidationProps');
    this.inventory = ZoneInventory.equalNodes(props.zones, props.nodesPerZone ?? 3);
    this.failOn = props.failOn ?? ZoneCheckFailOn.ERROR;
  }

  /**
   * Checks the manifests of `context` (a cdk8s CLI `ValidationContext`), adds a violation per finding at
   * warning or error severity, and submits the report.
   */
  public async validate(context: unknown): Promise<void> {
    const cli = context as ValidationContext;
    const values: unknown[] = [];
    // The manifest file of each object, by kind/namespace/name, for the violations.
    const files = new Map<string, string>();
    for (const manifest of cli.manifests) {
      for (const value of expandLists(cli.parseManifest(manifest))) {
        values.push(value);
        const v = asObject(value);
        const metadata = v?.metadata as Meta | undefined;
        const id = workloadId({ kind: String(v?.kind), namespace: metadata?.namespace, name: String(metadata?.name) });
        if (!files.has(id)) files.set(id, manifest);
      }
    }
    const data = analyzeManifests(values, this.inventory);

    const located = [...allFindings(data), ...zoneLossFindings(data)];
    for (const { finding, workload } of located) {
      if (finding.severity === FindingSeverity.INFO) {
        cli.logger.log(`[${finding.rule}] ${workload ? workloadId(workload) : '(input)'}: ${finding.message}`);
        continue;
      }
      const manifestPath = workload && files.get(workloadId(workload));
      const violatingResources = workload && manifestPath
        ? [{ resourceName: workload.name, locations: [LOCATION], manifestPath }]
        : [];
      cli.report.addViolation({
        ruleName: `${finding.rule} (${finding.severity})`,
        recommendation: finding.message,
        fix: finding.fix,
        violatingResources,
      });
    }

    const threshold = this.failOn === ZoneCheckFailOn.NEVER ? -1 : severityRank(this.failOn);
    const reachesThreshold = ({ finding }: LocatedFinding) => severityRank(finding.severity) <= threshold;
    const fails = threshold >= 0 && (!data.workloads.every(survivesAnyZone) || located.some(reachesThreshold));
    cli.report.submit(fails ? 'failure' : 'success', {
      zones: data.zones.join(', '),
      workloads: String(data.workloads.length),
      verdict: verdict(data),
      failOn: this.failOn,
    });
  }
}

/** The objects of parsed documents: empty documents dropped, a List's items expanded. */
function expandLists(docs: readonly unknown[]): unknown[] {
  return docs.flatMap((doc) => {
    if (doc === null || doc === undefined) return [];
    const items = listItems(doc);
    return items !== undefined ? expandLists(items) : [doc];
  });
}

/** What `validate` uses of the cdk8s CLI's ValidationContext (cdk8s-cli's plugin API). */
interface ValidationContext {
  readonly manifests: readonly string[];
  readonly logger: { log(message: string): void };
  readonly report: {
    addViolation(violation: Violation): void;
    submit(status: 'success' | 'failure', metadata: { [key: string]: string }): void;
  };
  parseManifest(manifest: string): unknown[];
}

/** A violation as the cdk8s CLI's report takes it. */
interface Violation {
  readonly ruleName: string;
  readonly recommendation: string;
  readonly fix: string;
  readonly violatingResources: { resourceName: string; locations: string[]; manifestPath: string }[];
}
