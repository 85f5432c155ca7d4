import { describe, expect, it } from '@jest/globals';
import { decodeProtobufObject } from '../../../../src/testing/fakeKubeApiServer/protobuf/envelope.js';
import { StatusError } from '../../../../src/testing/fakeKubeApiServer/statusBody.js';
import { readVarint } from '../../../../src/testing/fakeKubeApiServer/protobuf/wire.js';
import { entry, envelope, hex, int, len, varint } from './encode.js';

/** The Status a body is refused with. */
function refusal(body: Buffer): { code: number; reason: string; message: string } {
  try {
    decodeProtobufObject(body);
  } catch (e) {
    if (!(e instanceof StatusError)) throw e;
    const { code, reason, message } = e.status;
    return { code, reason, message };
  }
  throw new Error('the body was decoded');
}

// ObjectMeta as kubectl writes it: every non-pointer string, even empty, and an empty Time.
const meta = (name: string, ...more: Buffer[]): Buffer =>
  len(
    1,
    len(1, name),
    len(2, ''),
    len(3, ''),
    len(5, ''),
    len(6, ''),
    int(7, 0),
    len(8, ''),
    ...more,
  );

describe('protobuf request bodies', () => {
  it('decodes the ConfigMap kubectl 1.32 sends on `create configmap` (its -v=8 dump)', () => {
    const body = hex(`6b 38 73 00 0a 0f 0a 02 76 31 12 09 43 6f 6e 66 69 67 4d 61 70 12 2f 0a
      1b 0a 0b 73 69 74 65 2d 63 6f 6e 66 69 67 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 06
      0a 01 78 12 01 31 12 08 0a 01 79 12 03 74 77 6f 1a 00 22 00`);
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'site-config' },
      data: { x: '1', y: 'two' },
    });
  });

  it('decodes the RoleBinding kubectl 1.32 sends on `create rolebinding` (its -v=8 dump)', () => {
    const body = hex(`6b 38 73 00 0a 2b 0a 1c 72 62 61 63 2e 61 75 74 68 6f 72 69 7a 61 74 69
      6f 6e 2e 6b 38 73 2e 69 6f 2f 76 31 12 0b 52 6f 6c 65 42 69 6e 64 69 6e 67 12 6b 0a 12 0a
      02 72 62 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 2a 0a 04 55 73 65 72 12 19 72 62 61
      63 2e 61 75 74 68 6f 72 69 7a 61 74 69 6f 6e 2e 6b 38 73 2e 69 6f 1a 05 61 6c 69 63 65 22
      00 1a 29 0a 19 72 62 61 63 2e 61 75 74 68 6f 72 69 7a 61 74 69 6f 6e 2e 6b 38 73 2e 69 6f
      12 04 52 6f 6c 65 1a 06 72 65 61 64 65 72 1a 00 22 00`);
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    });
  });

  it('Secret data (map<string, bytes>) is base64 in JSON; labels, annotations and a set Time', () => {
    const raw = Buffer.concat([
      meta(
        's1',
        entry(11, 'app', 'web'),
        entry(12, 'note', 'x'),
        len(9, int(1, 1_700_000_000)), // deletionTimestamp
      ),
      entry(2, 'password', Buffer.from([0xff, 0x00, 0x41])),
      len(3, 'Opaque'),
      int(5, false), // immutable: a pointer in Go, its false is kept
    ]);
    expect(decodeProtobufObject(envelope('v1', 'Secret', raw))).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's1',
        labels: { app: 'web' },
        annotations: { note: 'x' },
        deletionTimestamp: '2023-11-14T22:13:20Z',
      },
      data: { password: '/wBB' },
      type: 'Opaque',
      immutable: false,
    });
  });

  it('a Deployment: replicas 0 kept, other zeros dropped, IntOrString, nested lists and maps', () => {
    const container = Buffer.concat([
      len(1, 'web'),
      len(2, 'nginx'),
      len(3, 'nginx'),
      len(3, '-g'),
      len(6, len(1, ''), int(2, 0), int(3, 80), len(4, 'TCP')), // ports: hostPort 0 dropped
      len(8, ''), // resources: an empty struct stays {}
    ]);
    const spec = Buffer.concat([
      int(1, 0),
      len(2, entry(1, 'app', 'web')),
      len(3, len(1, len(1, ''), entry(11, 'app', 'web')), len(2, len(2, container), int(4, -1))),
      len(4, len(1, 'RollingUpdate'), len(2, len(1, int(1, 1), len(3, '25%')), len(2, int(2, 2)))),
    ]);
    expect(
      decodeProtobufObject(
        envelope('apps/v1', 'Deployment', Buffer.concat([meta('web'), len(2, spec)])),
      ),
    ).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginx',
                command: ['nginx', '-g'],
                ports: [{ containerPort: 80, protocol: 'TCP' }],
                resources: {},
              },
            ],
            terminationGracePeriodSeconds: -1,
          },
        },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 2 } },
      },
    });
  });

  it('an embedded Go struct (json:",inline") is a nested message on the wire, flat in JSON', () => {
    // Pod.spec.volumes[0]: Volume {name, volumeSource (inline) {configMap {localObjectReference (inline) {name}, defaultMode}}}
    const configMap = len(19, len(1, len(1, 'settings')), int(3, 0o644));
    const volume = len(1, len(1, 'config'), len(2, configMap));
    const pod = Buffer.concat([meta('p'), len(2, volume, len(2, len(1, 'main')))]);
    expect(decodeProtobufObject(envelope('v1', 'Pod', pod))).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        volumes: [{ name: 'config', configMap: { name: 'settings', defaultMode: 0o644 } }],
        containers: [{ name: 'main' }],
      },
    });
  });

  it('reads 64-bit varints, negative ones included', () => {
    expect(readVarint(varint(300), 0)).toEqual([300n, 2]);
    expect(readVarint(varint(-1), 0)).toEqual([2n ** 64n - 1n, 10]);
    expect(() => readVarint(Buffer.from([0x80]), 0)).toThrow(/truncated/);
  });

  it('a kind without tables, or a field newer than them, is a 415 Status', () => {
    expect(refusal(envelope('storage.k8s.io/v1', 'StorageClass', meta('s')))).toMatchObject({
      code: 415,
      reason: 'UnsupportedMediaType',
      message: expect.stringMatching(
        /^StorageClass \(storage.k8s.io\/v1\) as protobuf: .*application\/json$/,
      ),
    });
    expect(
      refusal(envelope('v1', 'ConfigMap', Buffer.concat([meta('a'), len(99, 'x')]))),
    ).toMatchObject({
      code: 415,
      message: expect.stringContaining('field 99 of k8s.io.api.core.v1.ConfigMap'),
    });
    // An empty unknown field is what a client writes for a field it leaves unset: ignored.
    expect(
      decodeProtobufObject(envelope('v1', 'ConfigMap', Buffer.concat([meta('a'), len(99, '')]))),
    ).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a' },
    });
  });

  it('a malformed body is a 400 Status', () => {
    expect(refusal(Buffer.from('{"kind":"ConfigMap"}'))).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: expect.stringContaining('without the k8s\\0 prefix'),
    });
    const truncated = envelope('v1', 'ConfigMap', meta('a')).subarray(0, 30);
    expect(refusal(truncated)).toMatchObject({
      code: 400,
      message: expect.stringContaining('truncated'),
    });
    // A string field sent as a varint.
    expect(refusal(envelope('v1', 'ConfigMap', len(1, int(1, 5))))).toMatchObject({
      code: 400,
      message: expect.stringContaining('not a string'),
    });
  });
});
