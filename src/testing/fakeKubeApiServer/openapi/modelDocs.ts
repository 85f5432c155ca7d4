import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** What a client-node model's declaration file says of its type: descriptions and required fields. */
export interface ModelDocs {
  description?: string;
  /** Descriptions by JSON name. */
  properties: Map<string, string>;
  /** The JSON names of the properties declared without `?`. */
  required: string[];
}

const NONE: ModelDocs = { properties: new Map(), required: [] };
const cache = new Map<string, ModelDocs>();
let modelsDir: string | null | undefined;

/** client-node's `dist/gen/models` folder, or null where it cannot be found (a bundle). */
function modelsFolder(): string | null {
  if (modelsDir === undefined) {
    try {
      const entry = createRequire(import.meta.url).resolve('@kubernetes/client-node');
      modelsDir = join(dirname(entry), 'gen', 'models');
    } catch {
      modelsDir = null;
    }
  }
  return modelsDir;
}

/** The text of a `/** ... *\/` block, its lines joined. */
function commentText(block: string): string {
  return block
    .split('\n')
    .map((l) => l.replace(/^\s*\*\s?/, '').trim())
    .filter((l) => l !== '')
    .join(' ')
    .replace(/\\(['"\\])/g, '$1');
}

/**
 * The descriptions and required properties of a client-node model class, read from its `.d.ts`
 * (the model classes carry types at run time, but their documentation only in the declarations,
 * generated from Kubernetes' OpenAPI). Empty when the file is missing: schemas then have no
 * descriptions.
 */
export function modelDocs(className: string): ModelDocs {
  const cached = cache.get(className);
  if (cached !== undefined) return cached;
  let docs = NONE;
  const dir = modelsFolder();
  if (dir !== null && /^\w+$/.test(className)) {
    try {
      docs = parse(readFileSync(join(dir, `${className}.d.ts`), 'utf8'));
    } catch {
      docs = NONE;
    }
  }
  cache.set(className, docs);
  return docs;
}

function parse(text: string): ModelDocs {
  const start = text.indexOf('export declare class');
  if (start < 0) return NONE;
  const before = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*$/.exec(text.slice(0, start));
  const properties = new Map<string, string>();
  const required: string[] = [];
  const member = /(?:\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*)?'([^']+)'(\?)?:/g;
  for (const m of text.slice(start).matchAll(member)) {
    if (m[1] !== undefined) properties.set(m[2], commentText(m[1]));
    if (m[3] === undefined) required.push(m[2]);
  }
  const description = before === null ? undefined : commentText(before[1]);
  return { description, properties, required };
}
