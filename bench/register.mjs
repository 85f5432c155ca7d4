// Lets Node 20 run the TypeScript benchmarks without a build or extra tooling:
//   node --import ./bench/register.mjs bench/store.bench.ts
// Each .ts module is transpiled on load with the project's own `typescript` (types are not
// checked here: `npx tsc --noEmit -p .` does that).
import { register } from 'node:module';

register('./tsHooks.mjs', import.meta.url);
