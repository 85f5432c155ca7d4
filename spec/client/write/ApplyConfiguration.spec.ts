import { describe, expect, it } from '@jest/globals';
import type { V1Deployment } from '@kubernetes/client-node';
import type { ApplyConfiguration } from '../../../src/client/write/ApplyConfiguration.js';

// Type checks (the project's `tsc --noEmit` covers spec/): what an ApplyConfiguration allows
// and what it refuses. The run-time half (apiVersion and kind from the ref) is in the
// resourceApi specs.
describe('ApplyConfiguration', () => {
  it('is a deep partial with metadata.name required', () => {
    const config: ApplyConfiguration<V1Deployment> = {
      metadata: { name: 'web', labels: { app: 'web' } },
      // Deep: a container without its image, a template without its selector.
      spec: { template: { spec: { containers: [{ name: 'main' }] } } },
    };
    // @ts-expect-error metadata.name is required
    const nameless: ApplyConfiguration<V1Deployment> = { metadata: { labels: {} } };
    // @ts-expect-error metadata is required
    const bare: ApplyConfiguration<V1Deployment> = { spec: {} };
    const wrong: ApplyConfiguration<V1Deployment> = {
      metadata: { name: 'a' },
      // @ts-expect-error fields keep their types
      spec: { replicas: 'x' },
    };
    const typed: ApplyConfiguration<V1Deployment> = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
    };
    expect([config, nameless, bare, wrong, typed]).toHaveLength(5);
  });
});
