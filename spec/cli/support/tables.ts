// meta.k8s.io/v1 Tables as the API server writes them, for a custom resource with printer columns.

export const cronTabColumns = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique', priority: 0 },
  { name: 'Spec', type: 'string', format: '', description: 'The cron spec', priority: 0 },
  { name: 'Replicas', type: 'integer', format: '', description: 'How many', priority: 1 },
  { name: 'Age', type: 'date', format: '', description: 'Creation time', priority: 0 },
];

/** One row: the cells, and the object as PartialObjectMetadata (includeObject=Metadata). */
export function cronTabRow(
  name: string,
  resourceVersion: string,
  spec: string,
  replicas: number | null,
) {
  return {
    cells: [name, spec, replicas, '5m'],
    object: {
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { name, namespace: 'default', resourceVersion, uid: `uid-${name}` },
    },
  };
}

/** A Table: with columns (a list, the first event of a watch) or without (later events). */
export function table(
  resourceVersion: string,
  rows: unknown[],
  { columns = true, next }: { columns?: boolean; next?: string } = {},
) {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion, ...(next && { continue: next }) },
    columnDefinitions: columns ? cronTabColumns : null,
    rows,
  };
}
