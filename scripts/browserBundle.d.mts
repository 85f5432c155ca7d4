// Types of scripts/browserBundle.mjs, for the specs and examples that import it.
import type { BuildResult, Metafile, OutputFile, Plugin } from 'esbuild';

export declare const root: string;
export declare const browserEntry: string;
export declare const browserModules: Plugin;

export interface BrowserBundleOptions {
  entry?: string;
  stdin?: string;
  outfile?: string;
  minify?: boolean;
  bundleRxjs?: boolean;
  sourcemap?: boolean;
}

export type BrowserBundle = BuildResult & { metafile: Metafile; outputFiles: OutputFile[] };

export declare function bundleBrowser(options?: BrowserBundleOptions): Promise<BrowserBundle>;
export declare function nodeTraces(result: {
  metafile: Metafile;
  outputFiles?: Array<{ path: string; text: string }>;
}): string[];
export declare function nodeTracesOfBundle(options?: BrowserBundleOptions): Promise<string[]>;
