import { assertObjectArgument, describeType } from '../../objects/argumentChecks.js';
import type { KubernetesObject, ResourceRef } from '../../types.js';
import type { ServerContext } from './ServerContext.js';
import { apiDelete, apiUpdate } from './deletion/objectApiRules.js';
import type { FakeDeleteOptions } from './deletion/objectApiRules.js';
import { defineResource } from './crdDefinition.js';
import type { ResourceDefinition } from './types.js';

/**
 * The object API of a {@link FakeKubeApiServer}: what tests use to set up and change the
 * cluster directly (every change is a watch event, as a write over HTTP would be).
 */
export abstract class FakeObjectApi {
  /** What the request handler shares with the server. */
  protected abstract readonly ctx: ServerContext;

  /**
   * Creates an object: a new global resourceVersion, a uid and creationTimestamp unless given,
   * kind/apiVersion when missing; watchers get ADDED. Throws {@link FakeKubeApiError} 409 if it exists.
   *
   * @example
   * const created = server.create(pods, pod('web-1', 'ignored'));
   * created.metadata?.resourceVersion; // e.g. '1'
   */
  create<T extends KubernetesObject>(resource: ResourceRef<T>, obj: T): T {
    checkArguments('create', { resource, obj });
    return this.ctx.objects.create(resource, obj) as T;
  }

  /**
   * Registers a custom resource, as applying its CustomResourceDefinition would: it appears in
   * discovery (`/apis`, `/apis/{group}/{version}`) with its kind, scope, singular and short
   * names, its objects get its kind, Table answers carry its printer columns, and the server
   * holds the CRD object (`customresourcedefinitions`, named `{plural}.{group}`): writing that
   * object is what registers the type, as a CRD applied over HTTP does. `subresources` adds
   * `/status` and `/scale`; `schema` gives the version's `openAPIV3Schema` (its list types).
   * Defining it again replaces that version; defining another version adds it to the CRD.
   * Returns the ResourceRef to use with the object API.
   *
   * @example
   * const crontabs = server.defineResource({
   *   group: 'stable.example.com', version: 'v1', plural: 'crontabs', kind: 'CronTab',
   *   shortNames: ['ct'],
   *   printerColumns: [{ name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' }],
   * });
   * server.create(crontabs, { metadata: { name: 'nightly', namespace: 'default' } });
   * // kubectl get ct  ->  NAME  SPEC  AGE
   */
  defineResource<T extends KubernetesObject = KubernetesObject>(
    definition: ResourceDefinition,
  ): ResourceRef<T> {
    checkArguments('defineResource', { definition });
    return defineResource<T>(this.ctx.objects, this.ctx.types, definition);
  }

  /**
   * Replaces an existing object (last write wins: a resourceVersion in `obj` is ignored);
   * watchers get MODIFIED. Throws {@link FakeKubeApiError} 404 if it does not exist. A
   * terminating object stays terminating (its `deletionTimestamp` is kept), refuses new
   * finalizers (422) and is deleted when the update removes its last finalizer (MODIFIED, then
   * DELETED). Setting `deletionTimestamp` here is allowed (a test playing a kubelet).
   *
   * @example
   * server.update(pods, pod('web-1', '', { status: { phase: 'Failed' } }));
   */
  update<T extends KubernetesObject>(resource: ResourceRef<T>, obj: T): T {
    checkArguments('update', { resource, obj });
    return apiUpdate(this.ctx.objects, resource, obj) as T;
  }

  /**
   * Deletes an object as a DELETE would: without finalizers it is gone (watchers get DELETED with
   * its last content at a new resourceVersion, which is what it returns); with finalizers (its
   * own, or `orphan` / `foregroundDeletion` for the propagation policy) it gets
   * `deletionTimestamp` (MODIFIED) and stays until they are removed; `force` removes it anyway.
   * Dependents are garbage collected after it, asynchronously: `await server.settled()`.
   * Undefined when there was no such object.
   *
   * @example
   * server.delete(pods, 'default', 'web-1')?.metadata?.resourceVersion;
   * server.delete(deployments, 'default', 'web', { propagationPolicy: 'Foreground' });
   * await server.settled(); // the deployment's dependents are gone, then the deployment
   */
  delete<T extends KubernetesObject>(
    resource: ResourceRef<T>,
    namespace: string | undefined,
    name: string,
    options: FakeDeleteOptions = {},
  ): T | undefined {
    checkArguments('delete', { resource }, { namespace, name });
    return apiDelete(this.ctx.objects, resource, namespace, name, options) as T | undefined;
  }

  /**
   * Resolves once the garbage collector has nothing left to do: the dependents of deleted owners
   * are deleted (or orphaned), Foreground and Orphan owners are finished. It runs on microtasks
   * after each change, so one `await` after the change that called for it is enough.
   *
   * @example
   * server.delete(deployments, 'default', 'web');
   * await server.settled();
   * expect(server.objects(replicasets)).toEqual([]);
   */
  settled(): Promise<void> {
    return this.ctx.gc.settled();
  }

  /**
   * A copy of one object, or undefined.
   *
   * @example
   * server.get(pods, 'default', 'web-1')?.status?.phase;
   */
  get<T extends KubernetesObject>(
    resource: ResourceRef<T>,
    namespace: string | undefined,
    name: string,
  ): T | undefined {
    checkArguments('get', { resource }, { namespace, name });
    return this.ctx.objects.get(resource, namespace, name) as T | undefined;
  }

  /**
   * Copies of the objects of a resource (in one namespace, or all), sorted by namespace/name.
   *
   * @example
   * expect(store.values()).toEqual(server.objects(pods));
   */
  objects<T extends KubernetesObject>(resource: ResourceRef<T>, namespace?: string): T[] {
    checkArguments('objects', { resource }, { namespace });
    return this.ctx.objects.list(resource, namespace) as T[];
  }

  /**
   * Compacts the history, like etcd compaction: the global resourceVersion advances by one and
   * every version handed out before is gone. Watches, `Exact` lists and continue tokens asking
   * for an older version answer 410 Expired; open watches get an in-stream 410 ERROR and end.
   *
   * @example
   * server.expireHistory();
   * // a client resuming from its last resourceVersion now gets 410 and must relist
   */
  expireHistory(): void {
    const objects = this.ctx.objects;
    objects.expire();
    for (const watch of [...this.ctx.watches]) watch.expire(objects.rv);
  }

  /**
   * Appends a line to a pod's log (`container` unset: the line belongs to every container);
   * followers get it at once. Appending to an ended log re-opens it.
   *
   * @example
   * server.appendLog('default', 'web-1', 'listening on :8080');
   */
  appendLog(namespace: string, pod: string, line: string, container?: string): void {
    checkArguments('appendLog', {}, { namespace, pod, line, container }, [
      'namespace',
      'pod',
      'line',
    ]);
    this.ctx.logs.append(namespace, pod, line, container);
  }

  /**
   * Ends a pod's log: `follow=true` requests complete, later ones get the lines and end.
   *
   * @example
   * server.endLogs('default', 'web-1');
   */
  endLogs(namespace: string, pod: string): void {
    checkArguments('endLogs', {}, { namespace, pod }, ['namespace', 'pod']);
    this.ctx.logs.end(namespace, pod);
  }
}

/**
 * Throws a TypeError naming the argument (`server.create: resource must be an object, not null`)
 * unless each of `objects` is an object and each of `strings` a string (or absent, unless
 * `required`): a test that passes the wrong thing learns which, not a crash deep in the store.
 */
function checkArguments(
  method: string,
  objects: Record<string, unknown>,
  strings: Record<string, unknown> = {},
  required: string[] = [],
): void {
  for (const [name, value] of Object.entries(objects)) {
    assertObjectArgument(`server.${method}`, name, value);
  }
  for (const [name, value] of Object.entries(strings)) {
    if (value === undefined && !required.includes(name)) continue;
    if (typeof value !== 'string') {
      throw new TypeError(`server.${method}: ${name} must be a string, not ${describeType(value)}`);
    }
  }
}
