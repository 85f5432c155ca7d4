// Types of scripts/docBlocks.mjs, for the spec that checks the documentation's code.

export interface DocBlock {
  /** The markdown file, relative to the repository. */
  file: string;
  /** The 1-based line of the block's first line of code. */
  line: number;
  flags: string[];
  code: string;
}

export type DocBlockKind = 'run' | 'sketch' | 'browser';

export declare const root: string;
export declare const FLAGS: string[];
export declare function documentFiles(): string[];
export declare function extractBlocks(path: string): DocBlock[];
export declare function blockKind(block: DocBlock): DocBlockKind;
export declare function usesGivenKubeConfig(block: DocBlock): boolean;
