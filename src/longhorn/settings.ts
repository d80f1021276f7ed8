import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { LONGHORN_NAMESPACE, longhornLabels } from './check';
import { AntiAffinity, LonghornSchedulingSettings, resolveSettings, SCHEDULING_SETTINGS_PROPS } from './options';
import { dnsLabelProblem } from '../kubernetes/kubernetes-names';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { invalidProp } from '../shared/errors';
import { checkProps, Props, PropSpec } from '../shared/props';

/** Props for `LonghornSettings`. */
export interface LonghornSettingsProps extends LonghornSchedulingSettings {
  /**
   * The namespace Longhorn runs in.
   *
   * @default 'longhorn-system'
   */
  readonly namespace?: string;

  /**
   * More settings by their Longhorn name (e.g. `{ 'replica-replenishment-wait-interval': '600' }`). A setting
   * a typed prop already sets is refused.
   *
   * @default - none
   */
  readonly extraSettings?: { [name: string]: string };
}

/** Each typed prop and the Longhorn setting it writes. */
const SETTING_NAMES: { [K in keyof LonghornSchedulingSettings]-?: string } = {
  replicaSoftAntiAffinity: 'replica-soft-anti-affinity',
  replicaZoneSoftAntiAffinity: 'replica-zone-soft-anti-affinity',
  replicaDiskSoftAntiAffinity: 'replica-disk-soft-anti-affinity',
  storageOverProvisioningPercentage: 'storage-over-provisioning-percentage',
  storageMinimalAvailablePercentage: 'storage-minimal-available-percentage',
  replicaAutoBalance: 'replica-auto-balance',
  defaultReplicaCount: 'default-replica-count',
  defaultDataLocality: 'default-data-locality',
  allowEmptyNodeSelectorVolume: 'allow-empty-node-selector-volume',
  allowEmptyDiskSelectorVolume: 'allow-empty-disk-selector-volume',
  storageReservedPercentageForDefaultDisk: 'storage-reserved-percentage-for-default-disk',
};


const PROPS: PropSpec<LonghornSettingsProps> = {
  ...SCHEDULING_SETTINGS_PROPS,
  namespace: Props.optional(KubeProps.dnsLabel()),
  extraSettings: Props.optional(Props.mapOf(Props.string())),
};

/**
 * Longhorn's global scheduling settings as `Setting` resources (`longhorn.io/v1beta2`, one per setting,
 * named after it, with a top-level string `value`). Only the settings given are emitted; the others keep
 * whatever value the cluster has. Pass `scheduling` to `LonghornStorageClass` or `LonghornVolume` so their
 * placement check uses the same values.
 */
export class LonghornSettings extends Construct {
  /** Every scheduling setting as this construct makes it: the given values, Longhorn's defaults for the rest. */
  public readonly scheduling: LonghornSchedulingSettings;
  /** The emitted settings by name, with their string values. */
  public readonly values: { [name: string]: string };

  constructor(scope: Construct, id: string, props: LonghornSettingsProps = {}) {
    super(scope, id);
    const where = `LonghornSettings '${this.node.path}'`;
    checkProps(where, props, PROPS, 'LonghornSettingsProps');
    const { namespace, extraSettings, ...given } = props;
    this.scheduling = resolveSettings(where, given, '');

    const values: { [name: string]: string } = {};
    for (const [key, name] of Object.entries(SETTING_NAMES)) {
      const value = given[key as keyof typeof SETTING_NAMES];
      if (value === undefined) continue;
      // Global anti-affinity settings are booleans: "soft" (ENABLED) is true.
      values[name] = value === AntiAffinity.ENABLED ? 'true' : value === AntiAffinity.DISABLED ? 'false' : String(value);
    }
    for (const [name, value] of Object.entries(extraSettings ?? {})) {
      // A Setting is named after its setting: the name must be a valid object name.
      if (dnsLabelProblem(name)) throw invalidProp(where, `extraSettings.${name}`, value, 'is not a Longhorn setting name (lowercase, digits and dashes, at most 63 characters)');
      if (name in values) throw invalidProp(where, `extraSettings.${name}`, value, `conflicts with the typed prop that sets it to ${JSON.stringify(values[name])}`);
      values[name] = value;
    }
    if (Object.keys(values).length === 0) {
      throw new Error(`${where}: no setting given: set at least one prop (or remove the construct)`);
    }
    this.values = Object.fromEntries(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : 1)));
    for (const [name, value] of Object.entries(this.values)) {
      new ApiObject(this, name, {
        apiVersion: 'longhorn.io/v1beta2',
        kind: 'Setting',
        metadata: { name, namespace: namespace ?? LONGHORN_NAMESPACE, labels: longhornLabels(this, 'setting') },
        value,
      });
    }
  }
}
