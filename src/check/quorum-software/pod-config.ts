/**
 * What a pod's containers say about the software they run (pure): each container's image name, its command line
 * (with `$(VAR)` expanded from its env, as Kubernetes does), its env, and the text of the ConfigMaps and Secrets its
 * pod mounts. Quorum recognisers (recognisers.ts) read their configuration from these.
 */
import { asObject, elementsOf, PodSpec } from '../../kubernetes/objects';

/** The text of the ConfigMaps and Secrets of the input, by `namespace/Kind/name`. */
export type ConfigTexts = ReadonlyMap<string, readonly string[]>;

/** One container, as far as its configuration goes. */
export interface ContainerConfig {
  /** The image's last path component without tag or digest (`docker.io/bitnami/etcd:3.6` is `etcd`). */
  readonly image: string;
  /** The command and its args, one word each. */
  readonly words: readonly string[];
  readonly env: ReadonlyMap<string, string>;
  /** The text of every ConfigMap and Secret key the pod mounts. */
  readonly files: readonly string[];
}

/** The most text read of one config value: a larger one is left out, not searched. */
const MAX_TEXT = 1_000_000;

/** Where a ConfigMap or Secret is found in `ConfigTexts`. */
export function configKey(namespace: string | undefined, kind: string, name: string): string {
  return `${namespace ?? ''}/${kind}/${name}`;
}

/** The text values of a ConfigMap (`data`) or a Secret (`stringData`, and `data` decoded from base64). */
export function configTexts(kind: string, o: { readonly data?: unknown; readonly stringData?: unknown }): string[] {
  const values = (v: unknown) => Object.values(asObject(v) ?? {})
    .filter((x): x is string => typeof x === 'string' && x.length <= MAX_TEXT);
  if (kind === 'ConfigMap') return values(o.data);
  return [...values(o.stringData), ...values(o.data).map((b) => Buffer.from(b, 'base64').toString('utf8'))];
}

/** `image`'s last path component, without tag or digest. */
export function imageName(image: unknown): string {
  if (typeof image !== 'string') return '';
  const path = image.split('@')[0];
  const last = path.slice(path.lastIndexOf('/') + 1);
  return last.split(':')[0];
}

/** The containers (init containers left out) of `pod`, with the config files it mounts. */
export function containerConfigs(pod: PodSpec, namespace: string | undefined, texts: ConfigTexts): ContainerConfig[] {
  const files = elementsOf(pod.volumes).flatMap((v) => {
    const volume = asObject(v);
    const configMap = asObject(volume?.configMap)?.name;
    const secret = asObject(volume?.secret)?.secretName;
    return [
      ...typeof configMap === 'string' ? texts.get(configKey(namespace, 'ConfigMap', configMap)) ?? [] : [],
      ...typeof secret === 'string' ? texts.get(configKey(namespace, 'Secret', secret)) ?? [] : [],
    ];
  });
  return elementsOf(pod.containers).map((c) => {
    const container = asObject(c) ?? {};
    const env = new Map(elementsOf(container.env).map(asObject)
      .filter((e) => typeof e?.name === 'string' && typeof e.value === 'string')
      .map((e) => [e!.name as string, e!.value as string]));
    const expand = (word: string) => word.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (all, name: string) => env.get(name) ?? all);
    const words = [...elementsOf(container.command), ...elementsOf(container.args)]
      .filter((w): w is string => typeof w === 'string').map(expand);
    return { image: imageName(container.image), words, env, files };
  });
}

/**
 * The value of a command-line flag (`--name=v`, `--name v`, `-name=v`, or inside a shell script), or undefined.
 */
export function flagValue(words: readonly string[], name: string): string | undefined {
  const text = words.join(' ');
  const m = new RegExp(`(?:^|\\s)--?${name.replace(/[.]/g, '\\.')}(?:=|\\s+)("[^"]*"|'[^']*'|[^\\s;&|]+)`).exec(text);
  return m ? m[1].replace(/^["']|["']$/g, '') : undefined;
}

/** Whether a command line has the flag (`-server`, `--server`), as a word of its own. */
export function hasFlag(words: readonly string[], name: string): boolean {
  return new RegExp(`(?:^|\\s)--?${name}(?:=true)?(?:\\s|$)`).test(words.join(' '));
}
