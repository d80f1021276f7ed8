import { CrdSchemas } from './crd-schema';

describe('CRD schema validation (the validator itself)', () => {
  const schemas = CrdSchemas.fromShared();
  const monitor = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: { name: 'web' },
    spec: { selector: { matchLabels: { app: 'web' } }, endpoints: [{ port: 'http', interval: '30s' }] },
  };

  test('accepts a valid ServiceMonitor', () => {
    expect(schemas.errors(monitor)).toEqual([]);
  });

  test('rejects an unknown field, a wrong type, a bad enum and an int-or-string of the wrong kind', () => {
    const bad = {
      ...monitor,
      spec: {
        ...monitor.spec,
        endpont: [],
        endpoints: [{ port: 8080, scheme: 'gopher', targetPort: { port: 1 } }],
      },
    };
    const errors = schemas.errors(bad).join('\n');
    expect(errors).toMatch(/\/spec must NOT have additional properties \(endpont\)/);
    expect(errors).toMatch(/\/spec\/endpoints\/0\/port must be string/);
    expect(errors).toMatch(/\/spec\/endpoints\/0\/scheme must be equal to one of the allowed values/);
    expect(errors).toMatch(/\/spec\/endpoints\/0\/targetPort must be integer/);
  });

  test('rejects duplicate entries of a list-type map', () => {
    const prom = {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'Prometheus',
      metadata: { name: 'p' },
      spec: { scrapeClasses: [{ name: 'a' }, { name: 'a' }] },
    };
    expect(schemas.errors(prom).join('\n')).toMatch(/\/spec\/scrapeClasses has duplicate map entry \["a"\]/);
  });

  test('an int64 format on a string field means an integer written as a string', () => {
    const crd = {
      spec: {
        group: 'example.com',
        names: { kind: 'Disk' },
        versions: [{
          name: 'v1',
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                size: { type: 'string', format: 'int64' },
                count: { type: 'integer', format: 'int64' },
              },
            },
          },
        }],
      },
    };
    const local = new CrdSchemas([crd]);
    const disk = (fields: object) => ({ apiVersion: 'example.com/v1', kind: 'Disk', metadata: { name: 'd' }, ...fields });
    expect(local.errors(disk({ size: '2147483648', count: 3 }))).toEqual([]);
    expect(local.errors(disk({ size: 2147483648 })).join('\n')).toMatch(/\/size must be string/);
    expect(local.errors(disk({ size: '2Gi' })).join('\n')).toMatch(/\/size must match pattern/);
    expect(local.errors(disk({ count: '3' })).join('\n')).toMatch(/\/count must be integer/);
  });

  test('an unknown kind is an error, not a pass', () => {
    expect(() => schemas.errors({ apiVersion: 'example.com/v1', kind: 'Nope' })).toThrow('no CRD defines example.com/v1 Nope');
  });
});
