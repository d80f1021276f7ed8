import { App, Chart } from 'cdk8s';
import { analyzeManifests } from './analyze';
import { ZoneInventory } from './inventory';
import { WorkloadReport, ZoneReportData } from './model';
import { checkArg, Props } from '../shared/props';

/**
 * Will these manifests survive losing a zone? For every workload (Deployment, StatefulSet, ReplicaSet,
 * DaemonSet, Job): the pods each zone is guaranteed and may get in the worst case its hard constraints allow,
 * and for each zone lost, the replicas left and whether that is what the workload needs. Pure and
 * deterministic. In a test: `expect(ZoneReport.of(chart, inventory).survivesLossOf('zone-a')).toBe(true)`, or over
 * every chart of an app: `ZoneReport.ofApp(app, inventory)`.
 */
export class ZoneReport {
  /** Checks parsed Kubernetes objects (anything else is reported as skipped). */
  public static analyze(manifests: unknown[], inventory: ZoneInventory): ZoneReport {
    // any element: what is no Kubernetes object (an empty YAML document is null) is reported as skipped
    checkArg('ZoneReport.analyze', 'manifests', manifests, Props.custom('a list of objects', (v) => (Array.isArray(v) ? undefined : 'must be a list')));
    checkArg('ZoneReport.analyze', 'inventory', inventory, Props.instanceOf(ZoneInventory));
    return new ZoneReport(analyzeManifests(manifests, inventory));
  }

  /** Checks what `chart` synthesizes. */
  public static of(chart: Chart, inventory: ZoneInventory): ZoneReport {
    checkArg('ZoneReport.of', 'chart', chart, Props.instanceOf(Chart));
    return ZoneReport.analyze(chart.toJson(), inventory);
  }

  /**
   * Checks what every chart of `app` synthesizes, together: one report over the whole app, as `cdk8s synth`
   * writes it (a workload in one chart and the PodDisruptionBudget or autoscaler of another count together).
   */
  public static ofApp(app: App, inventory: ZoneInventory): ZoneReport {
    checkArg('ZoneReport.ofApp', 'app', app, Props.instanceOf(App));
    return ZoneReport.analyze(app.charts.flatMap((chart) => chart.toJson()), inventory);
  }

  private constructor(
    /** The whole report (what the CLI prints as JSON). */
    public readonly data: ZoneReportData,
  ) {}

  /** The workloads checked. */
  public get workloads(): WorkloadReport[] {
    return this.data.workloads;
  }

  /** True when every workload keeps what it needs after losing `zone`. */
  public survivesLossOf(zone: string): boolean {
    const knownZone = (z: string) => (this.data.zones.includes(z)
      ? undefined
      : `is not one of the zones [${this.data.zones.join(', ')}]`);
    checkArg('ZoneReport.survivesLossOf', 'zone', zone, Props.string(knownZone));
    return this.data.workloads.every((w) => w.survives[zone]);
  }

  /** True when every workload survives losing any one zone. */
  public survivesAnyZoneLoss(): boolean {
    return this.data.zones.every((z) => this.survivesLossOf(z));
  }

  /** The workloads that do not survive losing `zone`, as `Kind namespace/name`. */
  public failingOnLossOf(zone: string): string[] {
    checkArg('ZoneReport.failingOnLossOf', 'zone', zone, Props.string());
    return this.data.workloads
      .filter((w) => w.survives[zone] === false)
      .map((w) => `${w.kind} ${w.namespace ? `${w.namespace}/` : ''}${w.name}`);
  }
}
