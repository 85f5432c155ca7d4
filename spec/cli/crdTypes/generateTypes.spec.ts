import { describe, expect, it } from '@jest/globals';
import { versionNames } from '../../../src/cli/crdTypes/generateTypes.js';
import type { Crd } from '../../../src/cli/crdTypes/crd.js';

// The naming scheme: the kind and the version for types, the plural in camel case (its words
// taken from the kind where the plural spells them) and the version for ResourceRefs.
const crd = (kind: string, plural: string): Crd => ({
  name: `${plural}.example.com`,
  group: 'example.com',
  plural,
  kind,
  namespaced: true,
  versions: [],
  origin: 'spec',
});

describe('versionNames', () => {
  it.each([
    ['CronTab', 'crontabs', 'v1', 'CronTabV1', 'cronTabsV1'],
    ['CronTab', 'crontabs', 'v1beta1', 'CronTabV1beta1', 'cronTabsV1beta1'],
    ['CronTab', 'crontabs', '', 'CronTab', 'cronTabs'],
    ['ClusterPolicy', 'clusterpolicies', 'v2', 'ClusterPolicyV2', 'clusterPoliciesV2'],
    ['Policy', 'policies', 'v1', 'PolicyV1', 'policiesV1'],
    ['DNSRecord', 'dnsrecords', 'v1alpha2', 'DNSRecordV1alpha2', 'dnsRecordsV1alpha2'],
    ['Ingress', 'ingresses', 'v1', 'IngressV1', 'ingressesV1'],
    ['Widget', 'gadgets', 'v1', 'WidgetV1', 'gadgetsV1'],
    ['S3Bucket', 's3buckets', 'v1', 'S3BucketV1', 's3BucketsV1'],
    ['Thing', 'my-things', 'v1-preview', 'ThingV1Preview', 'myThingsV1Preview'],
  ])('%s (%s, %s): %s and %s', (kind, plural, version, type, ref) => {
    expect(versionNames(crd(kind, plural), version)).toEqual({ type, ref });
  });
});
