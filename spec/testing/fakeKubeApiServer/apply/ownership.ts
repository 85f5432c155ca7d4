// The ownership model of the apply specs (randomApply.spec.ts, and the server-side apply
// property in spec/properties/): which fields of a Deployment its configurations set, which
// ones the managedFields own, and where the two disagree.

/** Every path of the object the test's configurations can set, in fieldsV1 spelling. */
function objectPaths(obj: any): Set<string> {
  const out = new Set<string>();
  const add = (...p: string[]) => out.add(JSON.stringify(p));
  for (const k of Object.keys(obj.metadata?.labels ?? {})) add('f:metadata', 'f:labels', `f:${k}`);
  if (obj.spec?.replicas !== undefined) add('f:spec', 'f:replicas');
  for (const c of obj.spec?.template?.spec?.containers ?? []) {
    const item = `k:${JSON.stringify({ name: c.name })}`;
    const at = ['f:spec', 'f:template', 'f:spec', 'f:containers', item];
    add(...at);
    for (const f of Object.keys(c)) add(...at, `f:${f}`);
  }
  return out;
}

/** Every path some managedFields entry owns (decoded from fieldsV1: `{}` or `"."` is a member). */
function ownedPaths(obj: any): Set<string> {
  const out = new Set<string>();
  const walk = (node: Record<string, any>, path: string[]) => {
    const keys = Object.keys(node);
    if (path.length > 0 && (keys.length === 0 || '.' in node)) out.add(JSON.stringify(path));
    for (const k of keys) if (k !== '.') walk(node[k], [...path, k]);
  };
  for (const e of obj.metadata?.managedFields ?? []) walk(e.fieldsV1, []);
  return out;
}

/**
 * Owned paths that are not in the object, and fields of the object that nobody owns: both
 * empty when ownership is consistent with the fields present.
 *
 * @example
 * expect(mismatch(live)).toEqual({ stale: [], unowned: [] });
 */
export function mismatch(obj: any): { stale: string[]; unowned: string[] } {
  const present = objectPaths(obj);
  const owned = ownedPaths(obj);
  // Interior paths (the "." of a map) are in the object when something below them is.
  const interior = new Set<string>();
  for (const p of present) {
    const parts = JSON.parse(p) as string[];
    for (let i = 1; i < parts.length; i++) interior.add(JSON.stringify(parts.slice(0, i)));
  }
  // An empty labels map (what a patch removing the last label leaves) is there to own too.
  if (obj.metadata?.labels !== undefined) interior.add(JSON.stringify(['f:metadata', 'f:labels']));
  return {
    stale: [...owned].filter((p) => !present.has(p) && !interior.has(p)),
    unowned: [...present].filter((p) => !owned.has(p)),
  };
}
