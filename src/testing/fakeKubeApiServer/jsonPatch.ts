import { cloneObject } from './cloneObject.js';
import { jsonEqual } from './jsonEqual.js';
import { StatusError, statusBody } from './statusBody.js';

type Json = unknown;
type Container = Record<string, Json> | Json[];

/** A JSON patch (RFC 6902) that cannot apply: 422, as the API server answers. */
function invalid(message: string): StatusError {
  return new StatusError(statusBody(422, `the server rejected our request: ${message}`, 'Invalid'));
}

function isObject(v: Json): v is Record<string, Json> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** JSON merge patch (RFC 7386): objects merge, `null` removes, anything else replaces. */
export function mergePatch(target: Json, patch: Json): Json {
  // The result must not share what the patch's owner may change later (a string or a number
  // is its own copy).
  if (!isObject(patch)) return cloneObject(patch);
  const out: Record<string, Json> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** Splits a JSON pointer (RFC 6901) into unescaped tokens. */
function pointer(path: unknown): string[] {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) {
    throw invalid(`invalid JSON pointer: ${JSON.stringify(path)}`);
  }
  return path === ''
    ? []
    : path
        .slice(1)
        .split('/')
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function arrayIndex(arr: Json[], token: string, forAdd: boolean): number {
  if (forAdd && token === '-') return arr.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw invalid(`invalid array index: ${token}`);
  const i = Number(token);
  if (i > arr.length || (!forAdd && i === arr.length)) throw invalid(`index out of range: ${i}`);
  return i;
}

/** The container of the last token of `path` within `doc` and that token. */
function parentOf(doc: Json, tokens: string[]): [Container, string] {
  let node = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(node)) node = node[arrayIndex(node, t, false)];
    else if (isObject(node) && Object.hasOwn(node, t)) node = node[t];
    else throw invalid(`missing path: /${tokens.join('/')}`);
  }
  if (!Array.isArray(node) && !isObject(node))
    throw invalid(`not a container: /${tokens.join('/')}`);
  return [node, tokens[tokens.length - 1]];
}

function getAt(doc: Json, tokens: string[]): Json {
  if (tokens.length === 0) return doc;
  const [parent, last] = parentOf(doc, tokens);
  if (Array.isArray(parent)) return parent[arrayIndex(parent, last, false)];
  if (!Object.hasOwn(parent, last)) throw invalid(`missing path: /${tokens.join('/')}`);
  return parent[last];
}

/** Whether the member at `tokens` is missing from an object that exists. */
function isAbsent(doc: Json, tokens: string[]): boolean {
  if (tokens.length === 0) return false;
  const [parent, last] = parentOf(doc, tokens);
  return !Array.isArray(parent) && !Object.hasOwn(parent, last);
}

function removeAt(doc: Json, tokens: string[]): Json {
  if (tokens.length === 0) throw invalid('cannot remove the whole document');
  const [parent, last] = parentOf(doc, tokens);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, last, false), 1)[0];
  if (!Object.hasOwn(parent, last)) throw invalid(`missing path: /${tokens.join('/')}`);
  const value = parent[last];
  delete parent[last];
  return value;
}

function addAt(doc: Json, tokens: string[], value: Json): Json {
  if (tokens.length === 0) return value;
  const [parent, last] = parentOf(doc, tokens);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true), 0, value);
  else parent[last] = value;
  return doc;
}

/** Applies a JSON patch (RFC 6902) to a copy of `doc`. */
export function jsonPatch(doc: Json, ops: Json): Json {
  if (!Array.isArray(ops)) throw invalid('a JSON patch must be an array of operations');
  let out = structuredClone(doc);
  for (const op of ops as Record<string, Json>[]) {
    if (!isObject(op)) throw invalid('a JSON patch operation must be an object');
    const path = pointer(op.path);
    switch (op.op) {
      case 'add':
        out = addAt(out, path, structuredClone(op.value));
        break;
      case 'remove':
        removeAt(out, path);
        break;
      case 'replace':
        getAt(out, path);
        if (path.length === 0) out = structuredClone(op.value);
        else {
          removeAt(out, path);
          out = addAt(out, path, structuredClone(op.value));
        }
        break;
      case 'move': {
        const value = removeAt(out, pointer(op.from));
        out = addAt(out, path, value);
        break;
      }
      case 'copy':
        out = addAt(out, path, structuredClone(getAt(out, pointer(op.from))));
        break;
      case 'test':
        // As kube-apiserver's json-patch: `null` tests true for a member that is absent (its
        // parent must exist), which is how a client tests "no finalizers yet".
        if (op.value === null && isAbsent(out, path)) break;
        if (!jsonEqual(getAt(out, path), op.value)) {
          throw invalid(`test failed at ${String(op.path)}`);
        }
        break;
      default:
        throw invalid(`unknown JSON patch operation: ${JSON.stringify(op.op)}`);
    }
  }
  return out;
}
